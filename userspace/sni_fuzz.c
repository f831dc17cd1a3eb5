// SPDX-License-Identifier: MIT
/* sni_fuzz.c - xpc_sni_parse on arbitrary bytes: any result, never a bad read. */
#include <string.h>

#include "userspace/sni.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[XPC_SNI_MAX];

	if (xpc_sni_parse(data, size, name) == XPC_SNI_OK && !name[0])
		__builtin_trap();
	return 0;
}
