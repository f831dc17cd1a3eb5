// SPDX-License-Identifier: MIT
/*
 * exec_decode_fuzz.c - XP_EV_EXEC decoding of arbitrary ring bytes: a
 * record is decoded only if xpc_exec_check() accepts it, as proc.c does.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/exec_decode.h"

static void ignore(void *ctx, const char *arg, size_t len)
{
	*(size_t *)ctx += len + (arg[0] == 'x');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xk_exec *e;
	char cwd[XP_CWD_MAX + XP_CWD_DEPTH + 2];
	size_t sum = 0;

	if (size > sizeof(*e))
		return 0;
	/* Exactly `size` bytes allocated: any over-read is an ASan report. */
	e = malloc(size < XPC_EXEC_FIXED ? XPC_EXEC_FIXED : size);
	memset(e, 0, XPC_EXEC_FIXED);
	memcpy(e, data, size);
	if (size >= sizeof(struct xk_hdr))
		e->hdr.size = size;
	if (xpc_exec_check(e, size) == 0) {
		xpc_exec_args(e, ignore, &sum);
		xpc_exec_cwd(e, cwd, sizeof(cwd));
	}
	free(e);
	return 0;
}
