/* SPDX-License-Identifier: MIT */
/*
 * jscan.h - a bounded JSON syntax scanner that remembers where values are.
 *
 * cJSON keeps no positions, and its recursive parser is no place to meet
 * hostile input. sc_jscan() checks the bytes first, iteratively and in linear
 * time: strict RFC 8259 syntax, valid UTF-8 (no surrogates, no overlongs),
 * escapes, nesting depth, number length (cJSON truncates literals longer than
 * 63 bytes). On success it records the line:col of every value in document
 * pre-order, which is also the pre-order of the cJSON tree parsed from the
 * same text; on failure it names the position, the JSON pointer being parsed
 * and the reason. Internal to //schema:validate.
 */
#ifndef XPERF_SCHEMA_JSCAN_H
#define XPERF_SCHEMA_JSCAN_H

#include <stddef.h>
#include <stdint.h>

struct sc_jpos {
	uint32_t line, col; /* 1-based; col counts bytes */
};

struct sc_jscan {
	struct sc_jpos *pos; /* one per value, pre-order; NULL on failure */
	size_t npos, cap;
	struct sc_jpos err;  /* failure position */
	char err_ptr[256];   /* JSON pointer of the value being parsed at failure */
	char err_msg[256];
};

/*
 * Scan buf[0..len). Returns 0 when it is one well-formed JSON value at most
 * max_depth containers deep with at most max_values values (s->pos filled),
 * -1 otherwise (s->err* filled).
 * Always release with sc_jscan_free().
 */
int sc_jscan(const char *buf, size_t len, int max_depth, size_t max_values, struct sc_jscan *s);
void sc_jscan_free(struct sc_jscan *s);

/*
 * Append "/" + token (escaped per RFC 6901: ~ -> ~0, / -> ~1) to the pointer
 * in ptr (capacity cap, always NUL-terminated; a token that does not fit is
 * cut and ends in "..."). `n` is the token length. Returns the new length.
 */
size_t sc_jptr_append(char *ptr, size_t cap, size_t len, const char *tok, size_t n);

#endif /* XPERF_SCHEMA_JSCAN_H */
