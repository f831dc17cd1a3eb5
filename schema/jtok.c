/* SPDX-License-Identifier: MIT */
/*
 * jtok.c - the pull tokenizer with value positions (see jtok.h).
 *
 * One pass, an explicit stack of at most max_depth containers, no recursion:
 * 100,000 nested brackets cost one error, not a stack overflow. The JSON
 * pointer of the value being parsed is built from the stack only when an
 * error needs it. Input read in pieces is refilled between tokens only
 * (whole_token): the scanners below see each token in one piece.
 */
#include "schema/jtok.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/utf8.h"

#define MAX_NUMBER_LEN 63 /* cJSON copies number literals into a 64-byte buffer */
#define KEY_KEPT 256      /* bytes of a key kept for pointers (they are cut at 255) */

enum state { S_VALUE, S_VALUE_OR_END, S_AFTER, S_KEY, S_KEY_OR_END, S_FAILED };

/* An open container and where the scan is inside it. */
struct sc_jlevel {
	char kind;          /* '{' or '[' */
	int keyed;          /* objects: in a member (0 between members) */
	char key[KEY_KEPT]; /* its key as written, the first klen bytes */
	size_t klen;
	size_t idx;         /* arrays: the current element's index */
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

static void build_pointer(const struct sc_jtok *t, char *ptr, size_t cap)
{
	size_t len = 0;

	ptr[0] = '\0';
	for (int d = 0; d < t->depth; d++) {
		const struct sc_jlevel *l = &t->lv[d];
		char num[24];

		if (l->kind == '[')
			len = sc_jptr_append(ptr, cap, len, num,
					     (size_t)snprintf(num, sizeof(num), "%zu", l->idx));
		else if (l->keyed)
			len = sc_jptr_append(ptr, cap, len, l->key, l->klen);
	}
}

/* The column of the byte at `at` (1-based, bytes). */
static uint32_t col_of(const struct sc_jtok *t, const unsigned char *at)
{
	return (uint32_t)(t->base + (uint64_t)(at - t->win) - t->line_off) + 1;
}

__attribute__((format(printf, 3, 4))) static int fail(struct sc_jtok *t, const unsigned char *at,
						     const char *fmt, ...)
{
	va_list ap;

	t->err.line = t->line;
	t->err.col = col_of(t, at);
	build_pointer(t, t->err_ptr, sizeof(t->err_ptr));
	va_start(ap, fmt);
	vsnprintf(t->err_msg, sizeof(t->err_msg), fmt, ap);
	va_end(ap);
	t->state = S_FAILED;
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

/*
 * More input after [p, end), moved to the window's start (grown when [p, end)
 * fills it): 1; 0 at the end of input; -1 when the read failed. Pointers into
 * the window other than p and end are stale afterwards.
 */
static int refill(struct sc_jtok *t)
{
	size_t keep = (size_t)(t->end - t->p);
	ssize_t r;

	if (!t->read || t->eof || t->io_failed)
		return t->io_failed ? -1 : 0;
	t->base += (uint64_t)(t->p - t->win);
	memmove(t->own, t->p, keep);
	if (xp_grow((void **)&t->own, &t->wcap, keep + 1, 1))
		return fail(t, t->p, "out of memory");
	t->win = t->p = t->own;
	t->end = t->own + keep;
	r = t->read(t->rctx, t->own + keep, t->wcap - keep);
	if (r < 0) {
		t->io_failed = 1;
		return fail(t, t->p, "read failed");
	}
	t->eof = !r;
	t->end += r;
	return r > 0;
}

/*
 * The token at p whole in the window, with the byte after it (a string to its
 * closing quote, a number or a literal to its first other byte), or up to
 * the end of input: 0, or -1 when reading failed.
 */
static int whole_token(struct sc_jtok *t)
{
	size_t i = 1, k;
	const unsigned char *q;
	int rc;

	for (;;) {
		if (i >= (size_t)(t->end - t->p)) {
			if ((rc = refill(t)) <= 0)
				return rc;
		} else if (*t->p != '"') { /* a number or a literal */
			if (!t->p[i] || !strchr("0123456789+-.eEabcdefghijklmnopqrstuvwxyz", t->p[i]))
				return 0;
			i++;
		} else if (!(q = memchr(t->p + i, '"', (size_t)(t->end - t->p) - i))) {
			i = (size_t)(t->end - t->p);
		} else { /* a quote ends the string unless an odd run of backslashes escapes it */
			i = (size_t)(q - t->p);
			for (k = 0; t->p[i - 1 - k] == '\\'; k++)
				;
			if (!(k & 1))
				return 0;
			i++;
		}
	}
}

static void skip_ws(struct sc_jtok *t)
{
	while (t->p < t->end || refill(t) > 0) {
		unsigned char c = *t->p;

		if (c == '\n') {
			t->line++;
			t->line_off = t->base + (uint64_t)(t->p + 1 - t->win);
		} else if (c != ' ' && c != '\t' && c != '\r') {
			return;
		}
		t->p++;
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

/* A decoded string being built (key or value buffer). */
struct out {
	char **buf;
	size_t *cap, len;
};

static int put(struct out *o, const void *src, size_t n)
{
	return xp_buf_append(o->buf, &o->len, o->cap, src, n);
}

/* Code point u as UTF-8: continuation bytes carry 6 bits each, from the last. */
static int put_utf8(struct out *o, unsigned long u)
{
	static const unsigned char lead[5] = { 0, 0x00, 0xc0, 0xe0, 0xf0 }; /* by length */
	unsigned char b[4];
	size_t n = u < 0x80 ? 1 : u < 0x800 ? 2 : u < 0x10000 ? 3 : 4;

	for (size_t i = n - 1; i > 0; i--, u >>= 6)
		b[i] = (unsigned char)(0x80 | (u & 0x3f));
	b[0] = (unsigned char)(lead[n] | u);
	return put(o, b, n);
}

/* At a backslash inside a string: check the escape, decode it and step over it. */
static int scan_escape(struct sc_jtok *t, struct out *o)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const unsigned char *at = t->p;
	const char *c;
	long u, lo;

	if (t->p + 1 >= t->end)
		return fail(t, t->end, "unterminated string");
	if (t->p[1] && (c = strchr(from, t->p[1]))) {
		t->p += 2;
		return put(o, &to[c - from], 1) ? fail(t, at, "out of memory") : 0;
	}
	if (t->p[1] != 'u') {
		char b[16];

		return fail(t, at, "invalid escape (backslash, %s) in string", show(t->p[1], b));
	}
	u = hex4(t->p + 2, t->end);
	if (u < 0)
		return fail(t, at, "invalid \\u escape in string");
	t->p += 6;
	if (u >= 0xdc00 && u <= 0xdfff)
		return fail(t, at, "lone low surrogate \\u%04lx in string", u);
	if (u >= 0xd800 && u <= 0xdbff) {
		lo = t->end - t->p >= 2 && t->p[0] == '\\' && t->p[1] == 'u'
			     ? hex4(t->p + 2, t->end) : -1;
		if (lo < 0xdc00 || lo > 0xdfff)
			return fail(t, at, "high surrogate \\u%04lx not followed by a low one", u);
		t->p += 6;
		u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
	}
	return put_utf8(o, (unsigned long)u) ? fail(t, at, "out of memory") : 0;
}

/* At the opening quote: scan to the closing one, decoding into buf. With `key`, it names
 * the current member. */
static int scan_string(struct sc_jtok *t, char **buf, size_t *cap, int key)
{
	const unsigned char *start = ++t->p, *run = t->p;
	struct out o = { buf, cap, 0 };
	char b[16];

	while (t->p < t->end && *t->p != '"') {
		size_t n;

		if (*t->p == '\\') {
			if (put(&o, run, (size_t)(t->p - run)))
				return fail(t, t->p, "out of memory");
			if (scan_escape(t, &o))
				return -1;
			run = t->p;
			continue;
		}
		if (*t->p < 0x20)
			return fail(t, t->p, "control character %s in string", show(*t->p, b));
		n = *t->p < 0x80 ? 1 : xp_utf8_len(t->p, (size_t)(t->end - t->p));
		if (!n)
			return fail(t, t->p, "invalid UTF-8 (%s) in string", show(*t->p, b));
		t->p += n;
	}
	if (t->p >= t->end)
		return fail(t, t->end, "unterminated string");
	if (put(&o, run, (size_t)(t->p - run)))
		return fail(t, t->p, "out of memory");
	if (key) {
		struct sc_jlevel *l = &t->lv[t->depth - 1];

		l->keyed = 1;
		l->klen = (size_t)(t->p - start) < KEY_KEPT ? (size_t)(t->p - start) : KEY_KEPT;
		memcpy(l->key, start, l->klen);
	}
	t->p++;
	t->slen = o.len;
	return 0;
}

static int scan_digits(struct sc_jtok *t, const unsigned char *at)
{
	if (t->p >= t->end || *t->p < '0' || *t->p > '9')
		return fail(t, at, "invalid number");
	while (t->p < t->end && *t->p >= '0' && *t->p <= '9')
		t->p++;
	return 0;
}

static int scan_number(struct sc_jtok *t, struct sc_jev *ev)
{
	const unsigned char *at = t->p;
	char lit[MAX_NUMBER_LEN + 1];

	if (*t->p == '-')
		t->p++;
	ev->integer = 1;
	if (t->p < t->end && *t->p == '0')
		t->p++;
	else if (scan_digits(t, at))
		return -1;
	if (t->p < t->end && *t->p == '.') {
		ev->integer = 0;
		t->p++;
		if (scan_digits(t, at))
			return -1;
	}
	if (t->p < t->end && (*t->p == 'e' || *t->p == 'E')) {
		ev->integer = 0;
		t->p++;
		if (t->p < t->end && (*t->p == '+' || *t->p == '-'))
			t->p++;
		if (scan_digits(t, at))
			return -1;
	}
	if (t->p - at > MAX_NUMBER_LEN)
		return fail(t, at, "number literal longer than %d characters", MAX_NUMBER_LEN);
	ev->lit = (const char *)at;
	ev->litlen = (size_t)(t->p - at);
	memcpy(lit, at, ev->litlen);
	lit[ev->litlen] = '\0';
	ev->num = strtod(lit, NULL);
	return 0;
}

static int scan_scalar(struct sc_jtok *t, struct sc_jev *ev)
{
	static const char *const lits[] = { "true", "false", "null" };
	static const enum sc_jtype types[] = { SC_J_TRUE, SC_J_FALSE, SC_J_NULL };
	unsigned char c = *t->p;
	char b[16];

	if (whole_token(t))
		return -1;
	if (c == '"') {
		ev->type = SC_J_STRING;
		if (scan_string(t, &t->str, &t->scap, 0))
			return -1;
		ev->str = t->str;
		ev->len = t->slen;
		return 0;
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		ev->type = SC_J_NUMBER;
		return scan_number(t, ev);
	}
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(lits[i]);

		if (c != lits[i][0])
			continue;
		if ((size_t)(t->end - t->p) < n || memcmp(t->p, lits[i], n))
			return fail(t, t->p, "invalid literal, expected '%s'", lits[i]);
		t->p += n;
		ev->type = types[i];
		return 0;
	}
	return fail(t, t->p, "unexpected %s, expected a JSON value", show(c, b));
}

/* A value starts at t->p: count it and hand it out. */
static int value(struct sc_jtok *t, struct sc_jev *ev)
{
	unsigned char c = *t->p;

	if (t->values == t->max_values)
		return fail(t, t->p, "more than %zu JSON values", t->max_values);
	t->values++;
	ev->pos.line = t->line;
	ev->pos.col = col_of(t, t->p);
	ev->depth = t->depth;
	ev->key = t->depth && t->lv[t->depth - 1].kind == '{' ? t->key : NULL;
	if (c != '{' && c != '[') {
		t->state = S_AFTER;
		return scan_scalar(t, ev);
	}
	if (t->depth == t->max_depth)
		return fail(t, t->p, "nesting deeper than %d levels", t->max_depth);
	t->lv[t->depth++] = (struct sc_jlevel){ .kind = (char)c };
	t->p++;
	ev->type = c == '{' ? SC_J_OBJECT : SC_J_ARRAY;
	t->state = c == '{' ? S_KEY_OR_END : S_VALUE_OR_END;
	return 0;
}

/* At a closing bracket of the innermost container. */
static int close_level(struct sc_jtok *t, struct sc_jev *ev)
{
	ev->type = SC_J_END;
	ev->pos.line = t->line;
	ev->pos.col = col_of(t, t->p);
	ev->depth = --t->depth;
	ev->key = NULL;
	t->p++;
	t->state = S_AFTER;
	return 1;
}

/* After a value inside a container: a separator (0: go on) or the closing bracket (1). */
static int after_value(struct sc_jtok *t, struct sc_jev *ev)
{
	struct sc_jlevel *l = &t->lv[t->depth - 1];
	char b[16], close = l->kind == '{' ? '}' : ']';

	if (*t->p == close)
		return close_level(t, ev);
	if (*t->p != ',')
		return fail(t, t->p, "unexpected %s, expected ',' or '%c'", show(*t->p, b), close);
	t->p++;
	if (l->kind == '[') {
		l->idx++;
		t->state = S_VALUE;
	} else {
		l->keyed = 0; /* errors in the next key belong to the object */
		t->state = S_KEY;
	}
	return 0;
}

/* At a property name: scan it and its colon (0: go on to the value). */
static int member_key(struct sc_jtok *t)
{
	char b[16];

	if (*t->p != '"')
		return fail(t, t->p, "unexpected %s, expected a property name", show(*t->p, b));
	if (whole_token(t) || scan_string(t, &t->key, &t->kcap, 1))
		return -1;
	skip_ws(t);
	if (t->p >= t->end)
		return fail(t, t->p, "unexpected end of input");
	if (*t->p != ':')
		return fail(t, t->p, "expected ':' after the property name");
	t->p++;
	t->state = S_VALUE;
	return 0;
}

/* One step at a non-blank byte: 1 with an event, 0 to go on, -1 on failure. */
static int step(struct sc_jtok *t, struct sc_jev *ev)
{
	char b[16];

	switch (t->state) {
	case S_VALUE_OR_END:
		if (*t->p == ']')
			return close_level(t, ev);
		/* fall through */
	case S_VALUE:
		return value(t, ev) ? -1 : 1;
	case S_AFTER:
		if (!t->depth)
			return fail(t, t->p, "unexpected %s after the JSON value", show(*t->p, b));
		return after_value(t, ev);
	case S_KEY_OR_END:
		if (*t->p == '}')
			return close_level(t, ev);
		/* fall through */
	case S_KEY:
		return member_key(t);
	}
	return -1;
}

int sc_jtok_next(struct sc_jtok *t, struct sc_jev *ev)
{
	int rc = 0;

	memset(ev, 0, sizeof(*ev));
	while (!rc) {
		if (t->state == S_FAILED)
			return -1;
		skip_ws(t);
		if (t->state == S_FAILED)
			return -1;
		if (t->p == t->end) {
			if (t->state == S_AFTER && !t->depth)
				return 0;
			return fail(t, t->p, t->base + (uint64_t)(t->end - t->win) ?
					     "unexpected end of input" : "empty file");
		}
		rc = step(t, ev);
	}
	return rc;
}

int sc_jtok_init(struct sc_jtok *t, const char *buf, size_t len, int max_depth,
		 size_t max_values)
{
	memset(t, 0, sizeof(*t));
	t->win = t->p = (const unsigned char *)buf;
	t->end = t->p + len;
	t->line = 1;
	t->max_depth = max_depth;
	t->max_values = max_values;
	t->lv = malloc(((size_t)max_depth + 1) * sizeof(*t->lv));
	return t->lv ? 0 : fail(t, t->p, "out of memory");
}

int sc_jtok_init_read(struct sc_jtok *t, sc_jread_fn read, void *ctx, size_t window,
		      int max_depth, size_t max_values)
{
	unsigned char *w = malloc(window ? window : 1);
	int rc = sc_jtok_init(t, (const char *)w, 0, max_depth, max_values);

	t->read = read;
	t->rctx = ctx;
	t->own = w;
	t->wcap = window ? window : 1;
	return rc || !w ? fail(t, t->p, "out of memory") : 0;
}

void sc_jtok_free(struct sc_jtok *t)
{
	free(t->lv);
	free(t->key);
	free(t->str);
	free(t->own);
	t->lv = NULL;
	t->own = NULL;
	t->key = t->str = NULL;
}
