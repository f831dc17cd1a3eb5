/* SPDX-License-Identifier: MIT */
/*
 * jscan.c - iterative JSON syntax scanner with value positions (see jscan.h).
 *
 * One pass, an explicit stack of at most max_depth containers, no recursion:
 * 100,000 nested brackets cost one error, not a stack overflow. The JSON
 * pointer of the value being parsed is kept up to date so that a syntax
 * error can say where in the document it is.
 */
#include "schema/jscan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/utf8.h"

#define MAX_NUMBER_LEN 63 /* cJSON copies number literals into a 64-byte buffer */

enum state { S_VALUE, S_VALUE_OR_END, S_AFTER, S_KEY, S_KEY_OR_END };

struct scanner {
	const unsigned char *p, *end;
	const unsigned char *line_start;
	uint32_t line;
	struct sc_jscan *s;
	int depth, max_depth;
	size_t max_values;
	struct level *lv; /* the open containers, outermost first */
};

/* An open container and where the scan is inside it; the JSON pointer is built from these
 * only when an error needs it. */
struct level {
	char kind;                /* '{' or '[' */
	const unsigned char *key; /* objects: the current member's key, NULL between members */
	size_t klen;
	size_t idx; /* arrays: the current element's index */
};

size_t sc_jptr_append(char *ptr, size_t cap, size_t len, const char *tok, size_t n)
{
	if (len + 5 > cap) /* room for at least "/..." and the NUL */
		return len;
	ptr[len++] = '/';
	for (size_t i = 0; i < n; i++) {
		const char *esc = tok[i] == '~' ? "~0" : tok[i] == '/' ? "~1" : NULL;
		size_t k = esc ? 2 : 1;

		if (len + k + 4 > cap) { /* keep room for "..." and NUL */
			memcpy(ptr + len, "...", 3);
			len += 3;
			break;
		}
		memcpy(ptr + len, esc ? esc : &tok[i], k);
		len += k;
	}
	ptr[len] = '\0';
	return len;
}

static void build_pointer(const struct scanner *sc, char *ptr, size_t cap)
{
	size_t len = 0;

	ptr[0] = '\0';
	for (int d = 0; d < sc->depth; d++) {
		const struct level *l = &sc->lv[d];
		char num[24];

		if (l->kind == '[')
			len = sc_jptr_append(ptr, cap, len, num,
					     (size_t)snprintf(num, sizeof(num), "%zu", l->idx));
		else if (l->key)
			len = sc_jptr_append(ptr, cap, len, (const char *)l->key, l->klen);
	}
}

__attribute__((format(printf, 3, 4))) static int fail(struct scanner *sc, const unsigned char *at,
						     const char *fmt, ...)
{
	va_list ap;

	sc->s->err.line = sc->line;
	sc->s->err.col = (uint32_t)(at - sc->line_start) + 1;
	build_pointer(sc, sc->s->err_ptr, sizeof(sc->s->err_ptr));
	va_start(ap, fmt);
	vsnprintf(sc->s->err_msg, sizeof(sc->s->err_msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* A byte for a message: 'x' when printable, byte 0xNN otherwise. */
static const char *show(unsigned char c, char buf[16])
{
	if (c > 0x20 && c < 0x7f)
		snprintf(buf, 16, "'%c'", c);
	else
		snprintf(buf, 16, "byte 0x%02x", c);
	return buf;
}

static void skip_ws(struct scanner *sc)
{
	while (sc->p < sc->end) {
		unsigned char c = *sc->p;

		if (c == '\n') {
			sc->line++;
			sc->line_start = sc->p + 1;
		} else if (c != ' ' && c != '\t' && c != '\r') {
			return;
		}
		sc->p++;
	}
}

/* The 4 hex digits at p as a code unit, or -1. */
static long hex4(const unsigned char *p, const unsigned char *end)
{
	long v = 0;

	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int c = p[i] >= 'A' && p[i] <= 'F' ? p[i] + ('a' - 'A') : p[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

/* At a backslash inside a string: check the escape and step over it. */
static int scan_escape(struct scanner *sc)
{
	const unsigned char *at = sc->p;
	long u;

	if (sc->p + 1 >= sc->end)
		return fail(sc, sc->end, "unterminated string");
	if (!sc->p[1] || !strchr("\"\\/bfnrtu", sc->p[1])) {
		char b[16];

		return fail(sc, at, "invalid escape (backslash, %s) in string", show(sc->p[1], b));
	}
	if (sc->p[1] != 'u') {
		sc->p += 2;
		return 0;
	}
	u = hex4(sc->p + 2, sc->end);
	if (u < 0)
		return fail(sc, at, "invalid \\u escape in string");
	sc->p += 6;
	if (u >= 0xdc00 && u <= 0xdfff)
		return fail(sc, at, "lone low surrogate \\u%04lx in string", u);
	if (u >= 0xd800 && u <= 0xdbff) {
		long lo = sc->end - sc->p >= 2 && sc->p[0] == '\\' && sc->p[1] == 'u'
				  ? hex4(sc->p + 2, sc->end) : -1;
		if (lo < 0xdc00 || lo > 0xdfff)
			return fail(sc, at, "high surrogate \\u%04lx not followed by a low one", u);
		sc->p += 6;
	}
	return 0;
}

/* At the opening quote: scan to the closing one. With `key`, it names the current member. */
static int scan_string(struct scanner *sc, int key)
{
	const unsigned char *start = ++sc->p;
	char b[16];

	while (sc->p < sc->end && *sc->p != '"') {
		size_t n;

		if (*sc->p == '\\') {
			if (scan_escape(sc))
				return -1;
			continue;
		}
		if (*sc->p < 0x20)
			return fail(sc, sc->p, "control character %s in string", show(*sc->p, b));
		n = xp_utf8_len(sc->p, (size_t)(sc->end - sc->p));
		if (!n)
			return fail(sc, sc->p, "invalid UTF-8 (%s) in string", show(*sc->p, b));
		sc->p += n;
	}
	if (sc->p >= sc->end)
		return fail(sc, sc->end, "unterminated string");
	if (key) {
		sc->lv[sc->depth - 1].key = start;
		sc->lv[sc->depth - 1].klen = (size_t)(sc->p - start);
	}
	sc->p++;
	return 0;
}

static int scan_digits(struct scanner *sc, const unsigned char *at)
{
	if (sc->p >= sc->end || *sc->p < '0' || *sc->p > '9')
		return fail(sc, at, "invalid number");
	while (sc->p < sc->end && *sc->p >= '0' && *sc->p <= '9')
		sc->p++;
	return 0;
}

static int scan_number(struct scanner *sc)
{
	const unsigned char *at = sc->p;

	if (*sc->p == '-')
		sc->p++;
	if (sc->p < sc->end && *sc->p == '0')
		sc->p++;
	else if (scan_digits(sc, at))
		return -1;
	if (sc->p < sc->end && *sc->p == '.') {
		sc->p++;
		if (scan_digits(sc, at))
			return -1;
	}
	if (sc->p < sc->end && (*sc->p == 'e' || *sc->p == 'E')) {
		sc->p++;
		if (sc->p < sc->end && (*sc->p == '+' || *sc->p == '-'))
			sc->p++;
		if (scan_digits(sc, at))
			return -1;
	}
	if (sc->p - at > MAX_NUMBER_LEN)
		return fail(sc, at, "number literal longer than %d characters", MAX_NUMBER_LEN);
	return 0;
}

static int scan_scalar(struct scanner *sc)
{
	static const char *const lits[] = { "true", "false", "null" };
	unsigned char c = *sc->p;
	char b[16];

	if (c == '"')
		return scan_string(sc, 0);
	if (c == '-' || (c >= '0' && c <= '9'))
		return scan_number(sc);
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(lits[i]);

		if (c != lits[i][0])
			continue;
		if ((size_t)(sc->end - sc->p) < n || memcmp(sc->p, lits[i], n))
			return fail(sc, sc->p, "invalid literal, expected '%s'", lits[i]);
		sc->p += n;
		return 0;
	}
	return fail(sc, sc->p, "unexpected %s, expected a JSON value", show(c, b));
}

static int record(struct scanner *sc)
{
	struct sc_jscan *s = sc->s;

	if (s->npos == sc->max_values)
		return fail(sc, sc->p, "more than %zu JSON values", sc->max_values);
	if (s->npos == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct sc_jpos *n = realloc(s->pos, cap * sizeof(*n));

		if (!n)
			return fail(sc, sc->p, "out of memory");
		s->pos = n;
		s->cap = cap;
	}
	s->pos[s->npos].line = sc->line;
	s->pos[s->npos].col = (uint32_t)(sc->p - sc->line_start) + 1;
	s->npos++;
	return 0;
}

static int push(struct scanner *sc, char kind)
{
	if (sc->depth == sc->max_depth)
		return fail(sc, sc->p, "nesting deeper than %d levels", sc->max_depth);
	sc->lv[sc->depth] = (struct level){ .kind = kind };
	sc->depth++;
	sc->p++;
	return 0;
}

static void pop(struct scanner *sc)
{
	sc->depth--;
	sc->p++;
}

/* After a value inside a container: a separator or the closing bracket. */
static int after_value(struct scanner *sc, enum state *st)
{
	struct level *l = &sc->lv[sc->depth - 1];
	char b[16], close = l->kind == '{' ? '}' : ']';

	if (*sc->p == close) {
		pop(sc);
		return 0;
	}
	if (*sc->p != ',')
		return fail(sc, sc->p, "unexpected %s, expected ',' or '%c'", show(*sc->p, b),
			    close);
	sc->p++;
	if (l->kind == '[') {
		l->idx++;
		*st = S_VALUE;
	} else {
		l->key = NULL; /* errors in the next key belong to the object */
		*st = S_KEY;
	}
	return 0;
}

static int step(struct scanner *sc, enum state *st)
{
	unsigned char c = *sc->p;
	char b[16];

	switch (*st) {
	case S_VALUE_OR_END:
		if (c == ']') {
			pop(sc);
			*st = S_AFTER;
			return 0;
		}
		/* fall through */
	case S_VALUE:
		if (record(sc))
			return -1;
		if (c == '{' || c == '[') {
			*st = c == '{' ? S_KEY_OR_END : S_VALUE_OR_END;
			return push(sc, (char)c);
		}
		*st = S_AFTER;
		return scan_scalar(sc);
	case S_AFTER:
		if (!sc->depth)
			return fail(sc, sc->p, "unexpected %s after the JSON value", show(c, b));
		return after_value(sc, st);
	case S_KEY_OR_END:
		if (c == '}') {
			pop(sc);
			*st = S_AFTER;
			return 0;
		}
		/* fall through */
	case S_KEY:
		if (c != '"')
			return fail(sc, sc->p, "unexpected %s, expected a property name",
				    show(c, b));
		if (scan_string(sc, 1))
			return -1;
		skip_ws(sc);
		if (sc->p >= sc->end)
			return fail(sc, sc->p, "unexpected end of input");
		if (*sc->p != ':')
			return fail(sc, sc->p, "expected ':' after the property name");
		sc->p++;
		*st = S_VALUE;
		return 0;
	}
	return 0;
}

int sc_jscan(const char *buf, size_t len, int max_depth, size_t max_values, struct sc_jscan *s)
{
	struct scanner sc = {
		.p = (const unsigned char *)buf, .end = (const unsigned char *)buf + len,
		.line_start = (const unsigned char *)buf, .line = 1, .s = s, .max_depth = max_depth,
		.max_values = max_values,
	};
	enum state st = S_VALUE;
	int rc = -1;

	memset(s, 0, sizeof(*s));
	sc.lv = malloc(((size_t)max_depth + 1) * sizeof(*sc.lv));
	if (!sc.lv) {
		fail(&sc, sc.p, "out of memory");
		goto out;
	}
	for (;;) {
		skip_ws(&sc);
		if (sc.p == sc.end) {
			if (st == S_AFTER && !sc.depth)
				rc = 0;
			else
				fail(&sc, sc.p, len ? "unexpected end of input" : "empty file");
			break;
		}
		if (step(&sc, &st))
			break;
	}
out:
	free(sc.lv);
	if (rc) {
		free(s->pos);
		s->pos = NULL;
		s->npos = s->cap = 0;
	}
	return rc;
}

void sc_jscan_free(struct sc_jscan *s)
{
	free(s->pos);
	s->pos = NULL;
	s->npos = s->cap = 0;
}
