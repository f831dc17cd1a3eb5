/* SPDX-License-Identifier: MIT */
/*
 * json_out.h - JSON text written straight into a growing buffer, with no
 * tree: for streams of many small objects (xperf-bpf --raw: hundreds of
 * thousands of records a second), where building, printing and freeing a
 * cJSON tree per record costs tens of microseconds. Integers are printed
 * exactly at any size (no double in between); strings are escaped as cJSON
 * escapes them. Members are added in order; key NULL adds an array element.
 *
 *   struct xp_jout j = {0};
 *   xp_jout_reset(&j);
 *   xp_jout_open(&j, NULL, '{');
 *   xp_jout_u64(&j, "ts_ns", ts);
 *   xp_jout_close(&j, '}');
 *   ... j.buf, j.len; j.err != 0 when memory ran out (the text is cut) ...
 *   xp_jout_reset(&j);	(for the next object; xp_jout_free at the end)
 */
#ifndef XPERF_LIB_JSON_OUT_H
#define XPERF_LIB_JSON_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xp_jout {
	char *buf;
	size_t len, cap;
	int err;	/* -ENOMEM once a write did not fit: the text is incomplete */
	bool first;	/* the innermost open object or array has no member yet */
};

/* Start over in the same buffer (len 0, err 0). */
void xp_jout_reset(struct xp_jout *j);
void xp_jout_free(struct xp_jout *j);

/* Open '{' or '[' as member key (NULL: an element, or the top level); close with '}' / ']'. */
void xp_jout_open(struct xp_jout *j, const char *key, char brace);
void xp_jout_close(struct xp_jout *j, char brace);

void xp_jout_u64(struct xp_jout *j, const char *key, uint64_t v);
void xp_jout_bool(struct xp_jout *j, const char *key, bool v);
/* A string of at most max bytes (stops at a NUL), escaped. */
void xp_jout_strn(struct xp_jout *j, const char *key, const char *s, size_t max);
void xp_jout_str(struct xp_jout *j, const char *key, const char *s);
/* Text that is already JSON (a value, or with key NULL and first false: members). */
void xp_jout_raw(struct xp_jout *j, const char *key, const char *text, size_t len);

#endif /* XPERF_LIB_JSON_OUT_H */
