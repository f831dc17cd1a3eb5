// SPDX-License-Identifier: MIT
/*
 * utf8.c - UTF-8 validity for strings that come from outside (directory names
 * hold any byte): the exposition replaces bad bytes with U+FFFD, the
 * aggregates store names with bad bytes replaced by '?', so that every report
 * (JSON included) stays valid UTF-8.
 */
#include <string.h>

#include "fleet/fleet.h"

size_t fleet_utf8_len(const unsigned char *p, size_t n)
{
	size_t len = p[0] < 0x80 ? 1 : p[0] >= 0xc2 && p[0] < 0xe0 ? 2
		   : p[0] >= 0xe0 && p[0] < 0xf0 ? 3 : p[0] >= 0xf0 && p[0] < 0xf5 ? 4 : 0;

	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong 3/4-byte forms, UTF-16 surrogates, code points above U+10FFFF. */
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return len;
}

void fleet_copy_name(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src), i = 0;

	if (!size)
		return;
	while (i < n && i + 1 < size) {
		size_t len = fleet_utf8_len((const unsigned char *)src + i, n - i);

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
