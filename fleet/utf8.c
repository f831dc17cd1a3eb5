// SPDX-License-Identifier: MIT
/*
 * utf8.c - UTF-8 validity for strings that come from outside (directory names
 * hold any byte): the exposition replaces bad bytes with U+FFFD, the
 * aggregates store names with bad bytes replaced by '?', so that every report
 * (JSON included) stays valid UTF-8.
 */
#include <string.h>

#include "fleet/fleet.h"
#include "lib/utf8.h"

void fleet_copy_name(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src), i = 0;

	if (!size)
		return;
	while (i < n && i + 1 < size) {
		size_t len = xp_utf8_len((const unsigned char *)src + i, n - i);

		if (!len) {
			dst[i++] = '?';
			continue;
		}
		if (i + len >= size)
			break; /* never cut a character in two */
		memcpy(dst + i, src + i, len);
		i += len;
	}
	dst[i] = '\0';
}
