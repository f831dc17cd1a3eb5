/* SPDX-License-Identifier: MIT */
#include "lib/utf8.h"

#include <string.h>

size_t xp_utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0], cp, min;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

int xp_utf8_valid(const char *s)
{
	for (size_t n; *s; s += n)
		if (!(n = xp_utf8_len((const unsigned char *)s, strnlen(s, 4))))
			return 0;
	return 1;
}
