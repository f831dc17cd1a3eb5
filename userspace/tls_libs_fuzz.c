// SPDX-License-Identifier: MIT
/* tls_libs_fuzz.c - maps-line parsing and ELF symbol scanning on arbitrary bytes. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "userspace/tls_libs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1);
	struct xpc_map_ent e;
	int fd;

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	if (!xpc_maps_parse_line(line, &e) && e.path && (e.path < line || e.path > line + size))
		__builtin_trap();
	free(line);
	/* The ELF scan as the discovery runs it: on a file, mapped. */
	fd = memfd_create("elf", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size)
		xpc_tls_elf_ssl_syms_fd(fd);
	close(fd);
	return 0;
}
