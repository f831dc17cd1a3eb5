// SPDX-License-Identifier: MIT
/* tls_libs_fuzz.c - maps-line parsing and ELF symbol scanning on arbitrary bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/tls_libs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1);
	struct xpc_map_ent e;

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	if (!xpc_maps_parse_line(line, &e) && e.path && (e.path < line || e.path > line + size))
		__builtin_trap();
	free(line);
	xpc_tls_elf_ssl_syms_mem(data, size);
	return 0;
}
