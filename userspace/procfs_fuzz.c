// SPDX-License-Identifier: MIT
/* procfs_fuzz.c - the /proc parsers on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>

#include "userspace/procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char id[XPC_CONTAINER_ID_LEN];
	__u32 pids[16];

	xpc_parse_status_tgid((const char *)data, size);
	xpc_parse_pid_list((const char *)data, size, pids, 16);
	xpc_parse_container_id((const char *)data, size, id);
	return 0;
}
