// SPDX-License-Identifier: MIT
/*
 * exec_decode.c - XP_EV_EXEC variable data: filename, argv, cwd (leaf
 * first in the record, since the kernel walks up; reversed here).
 */
#include <string.h>

#include "userspace/exec_decode.h"

int xpc_exec_check(const struct xk_exec *e, size_t size)
{
	size_t total;

	if (size < XPC_EXEC_FIXED || e->hdr.size != size)
		return -1;
	total = XPC_EXEC_FIXED + (size_t)e->filename_len + e->args_len + e->cwd_len;
	if (total != size || e->filename_len == 0)
		return -1;
	if (e->data[e->filename_len - 1] != '\0')
		return -1;
	return 0;
}

int xpc_exec_args(const struct xk_exec *e,
		 void (*fn)(void *ctx, const char *arg, size_t len), void *ctx)
{
	const char *p = e->data + e->filename_len;
	const char *end = p + e->args_len;
	int n = 0;

	while (p < end) {
		const char *nul = memchr(p, '\0', end - p);
		size_t len = nul ? (size_t)(nul - p) : (size_t)(end - p);

		fn(ctx, p, len);
		n++;
		p += len + 1;
	}
	return n;
}

int xpc_exec_cwd(const struct xk_exec *e, char *out, size_t outlen)
{
	const char *base = e->data + e->filename_len + e->args_len;
	size_t end = e->cwd_len, pos = 0;

	if (outlen < 2)
		return -1;
	/* Components are NUL-terminated leaf first: take them from the end. */
	while (end > 0) {
		size_t start = end - 1, len;

		while (start > 0 && base[start - 1] != '\0')
			start--;
		len = strnlen(base + start, end - start);
		if (pos + 1 + len + 1 > outlen)
			return -1;
		out[pos++] = '/';
		memcpy(out + pos, base + start, len);
		pos += len;
		end = start;
	}
	if (pos == 0)
		out[pos++] = '/';
	out[pos] = '\0';
	return (int)pos;
}
