// SPDX-License-Identifier: MIT
/* redact_fuzz.c - xpc_redact_http1 on arbitrary bytes and output sizes. */
#include <stdint.h>
#include <stdlib.h>

#include "userspace/redact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cap = size ? data[0] * 8 : 0;
	char *out = malloc(cap + 1);

	if (out && xpc_redact_http1((const char *)data, size, out, cap, NULL) > cap)
		__builtin_trap();
	free(out);
	return 0;
}
