/* SPDX-License-Identifier: MIT */
/*
 * utf8.h - UTF-8 validity (RFC 3629: no overlong forms, no UTF-16
 * surrogates, nothing above U+10FFFF), for the validator's scanner, the
 * SDK's attributes and the fleet's names.
 */
#ifndef XPERF_LIB_UTF8_H
#define XPERF_LIB_UTF8_H

#include <stddef.h>

/* Length of the valid sequence at p (n bytes readable, n >= 1), 0 when invalid. */
size_t xp_utf8_len(const unsigned char *p, size_t n);
/* 1 when the NUL-terminated s is valid UTF-8. */
int xp_utf8_valid(const char *s);

#endif /* XPERF_LIB_UTF8_H */
