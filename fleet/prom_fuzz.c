// SPDX-License-Identifier: MIT
/*
 * prom_fuzz.c - libFuzzer target for the Prometheus exposition: label values
 * come from directory names and trace files (outside data). For any bytes the
 * escaped value must be valid UTF-8 (checked by an independent decoder here),
 * hold no raw newline, use only the escapes \\ \" \n, and give back the input
 * exactly when the input was valid UTF-8; a stored name (fleet_copy_name) is
 * valid UTF-8 too. A whole exposition with the bytes as
 * node and agent names must have as many lines as one with plain names: no
 * name can inject a sample.
 */
#define _GNU_SOURCE /* fopencookie */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"

/* Independent UTF-8 check: decode each code point and reject overlongs,
 * surrogates and values above U+10FFFF. Returns 1 when `s` is valid. */
static int valid_utf8(const unsigned char *s, size_t n)
{
	static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };

	for (size_t i = 0; i < n;) {
		size_t len = s[i] < 0x80 ? 1 : (s[i] >> 5) == 6 ? 2 : (s[i] >> 4) == 14 ? 3
			   : (s[i] >> 3) == 30 ? 4 : 0;
		uint32_t cp = len == 1 ? s[i] : s[i] & (0x7f >> len);

		if (!len || i + len > n)
			return 0;
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += len;
	}
	return 1;
}

static char *escaped(const uint8_t *in, size_t len, size_t *outlen)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, outlen);

	if (!f)
		abort();
	fleet_prom_escape((const char *)in, len, f);
	fclose(f);
	return buf;
}

/*
 * A stream that only counts the newlines written to it. The exposition is
 * about 40 KB: kept in a memstream and counted byte by byte in this
 * (instrumented) file, that count alone took 40% of each run and the
 * buffer's growth much of the rest (214 runs/s); memchr is not instrumented.
 */
static ssize_t count_lines(void *cookie, const char *buf, size_t len)
{
	size_t *lines = cookie;

	for (const char *p = buf, *end = buf + len; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		++*lines;
	return (ssize_t)len;
}

static size_t lines_with_names(const char *node, const char *agent)
{
	unsigned fired[th_l3_count];
	uint64_t ns[th_l3_count];
	struct fleet_input in = { .path = "/p", .node = node, .agent = agent, .turns = 1,
				  .fired = fired, .ns = ns };
	struct fleet_agg a;
	size_t lines = 0;
	FILE *f;

	memset(fired, 0, sizeof(fired));
	memset(ns, 0, sizeof(ns));
	if (fleet_agg_init(&a, "/") || fleet_add_session(&a, &in) ||
	    fleet_add_bad(&a, node, agent, 0) ||
	    !(f = fopencookie(&lines, "w", (cookie_io_functions_t){ .write = count_lines })))
		abort();
	if (fleet_prom_write(&a, f))
		abort();
	fclose(f);
	fleet_agg_free(&a);
	return lines;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n, k = 0;
	char *out = escaped(data, size, &n);
	char *back = malloc(n + 1), name[2][FLEET_NAME];

	if (!back || !valid_utf8((const unsigned char *)out, n) || memchr(out, '\n', n))
		abort();
	for (size_t i = 0; i < n; i++) {
		if (out[i] == '"')
			abort(); /* a quote must come escaped */
		if (out[i] == '\\') {
			if (i + 1 == n || !strchr("\\\"n", out[i + 1]))
				abort();
			back[k++] = out[++i] == 'n' ? '\n' : out[i];
		} else {
			back[k++] = out[i];
		}
	}
	if (valid_utf8(data, size) && (k != size || memcmp(back, data, size)))
		abort();
	free(back);
	free(out);
	/* Stored names are valid UTF-8 and a prefix of the input's length. */
	{
		char *src = strndup((const char *)data, size), dst[FLEET_NAME];

		if (!src)
			abort();
		fleet_copy_name(dst, sizeof(dst), src);
		if (!valid_utf8((const unsigned char *)dst, strlen(dst)) || strlen(dst) > strlen(src))
			abort();
		free(src);
	}
	/* Two NUL-free names from the input. */
	n = size / 2 < FLEET_NAME - 1 ? size / 2 : FLEET_NAME - 1;
	memcpy(name[0], data, n);
	name[0][n] = '\0';
	k = size - size / 2 < FLEET_NAME - 1 ? size - size / 2 : FLEET_NAME - 1;
	memcpy(name[1], data + size / 2, k);
	name[1][k] = '\0';
	static size_t plain;

	if (!plain)
		plain = lines_with_names("n", "a");
	if (lines_with_names(name[0], name[1]) != plain)
		abort();
	return 0;
}
