// SPDX-License-Identifier: MIT
/* exec_decode_test.c - XP_EV_EXEC decoding: lengths, argv, cwd reversal. */
#include <stdlib.h>
#include <string.h>

#include "lib/test_check.h"
#include "userspace/exec_decode.h"

/* Build a record as proc.bpf.c does: filename, argv, cwd leaf first. */
static size_t build(struct xk_exec *e, const char *fn, const char *args, size_t args_len,
		    const char *cwd, size_t cwd_len)
{
	size_t off = strlen(fn) + 1;

	memset(e, 0, sizeof(*e));
	memcpy(e->data, fn, off);
	memcpy(e->data + off, args, args_len);
	memcpy(e->data + off + args_len, cwd, cwd_len);
	e->filename_len = off;
	e->args_len = args_len;
	e->cwd_len = cwd_len;
	e->hdr.size = XPC_EXEC_FIXED + off + args_len + cwd_len;
	return e->hdr.size;
}

struct args {
	int n;
	char seen[8][32];
};

static void collect(void *ctx, const char *arg, size_t len)
{
	struct args *a = ctx;

	if (a->n < 8 && len < 32)
		memcpy(a->seen[a->n], arg, len);
	a->n++;
}

int main(void)
{
	struct xk_exec *e = calloc(1, sizeof(*e));
	struct args a = { 0 };
	char cwd[64];
	size_t size;

	size = build(e, "/usr/bin/ls", "ls\0-l\0/tmp\0", 11, "b\0a\0", 4);
	CHECK(xpc_exec_check(e, size) == 0);
	CHECK(xpc_exec_args(e, collect, &a) == 3);
	CHECK(!strcmp(a.seen[0], "ls") && !strcmp(a.seen[1], "-l") && !strcmp(a.seen[2], "/tmp"));
	CHECK(xpc_exec_cwd(e, cwd, sizeof(cwd)) == 4 && !strcmp(cwd, "/a/b"));
	CHECK(xpc_exec_cwd(e, cwd, 4) == -1);	/* too small: no overflow */

	/* argv cut by XP_ARGS_MAX: the last argument has no NUL. */
	memset(&a, 0, sizeof(a));
	size = build(e, "/bin/x", "x\0abc", 5, "", 0);
	CHECK(xpc_exec_check(e, size) == 0);
	CHECK(xpc_exec_args(e, collect, &a) == 2 && !strcmp(a.seen[1], "abc"));
	CHECK(xpc_exec_cwd(e, cwd, sizeof(cwd)) == 1 && !strcmp(cwd, "/"));

	/* Inconsistent records are refused. */
	size = build(e, "/bin/x", "x\0", 2, "", 0);
	CHECK(xpc_exec_check(e, size + 1) == -1);
	e->args_len = 40;
	CHECK(xpc_exec_check(e, size) == -1);
	build(e, "/bin/x", "x\0", 2, "", 0);
	e->data[e->filename_len - 1] = 'x';
	CHECK(xpc_exec_check(e, size) == -1);
	e->filename_len = 0;
	CHECK(xpc_exec_check(e, size) == -1);
	CHECK(xpc_exec_check(e, 3) == -1);
	free(e);
	return test_failures != 0;
}
