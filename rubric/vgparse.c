/* SPDX-License-Identifier: MIT */
/*
 * vgparse.c - line-oriented parsers of Valgrind's raw output formats.
 * A line cursor walks the buffer without copying it; numbers are parsed
 * with overflow checks, so any byte sequence gives a result or an error.
 */
#include "rubric/vgparse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

const char *const rb_cg_ev_names[CG_NEV] = { "Ir",   "Dr",   "Dw", "D1mr", "D1mw",
					     "DLmr", "DLmw", "Bc", "Bcm" };

#define MAX_COLS 64 /* event columns a cachegrind file may declare */

struct cursor {
	const char *p, *end;
	const char *line; /* current line, not terminated */
	size_t len;
	int no; /* 1-based line number */
};

static int next_line(struct cursor *c)
{
	if (c->p >= c->end)
		return 0;
	const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
	c->line = c->p;
	c->len = (size_t)((nl ? nl : c->end) - c->p);
	c->p = nl ? nl + 1 : c->end;
	c->no++;
	return 1;
}

static int fail(char *err, size_t errlen, const char *name, int line, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s:%d: %s", name, line, msg);
	return -1;
}

/* Does the line start with `prefix`? Then *rest points after it. */
static int starts(const struct cursor *c, const char *prefix, const char **rest)
{
	size_t n = strlen(prefix);

	if (c->len < n || memcmp(c->line, prefix, n))
		return 0;
	*rest = c->line + n;
	return 1;
}

static const char *skip_blanks(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
		s++;
	return s;
}

/* Unsigned decimal at *s (advanced); -1 when absent or above 2^63. */
static int parse_u64(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;

	if (p >= end || *p < '0' || *p > '9')
		return -1;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (x > (UINT64_MAX / 2 - 9) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*s = p;
	*v = x;
	return 0;
}

/* Space-separated counts up to the line end; returns how many, or -1 on junk. */
static int parse_counts(const char *s, const char *end, uint64_t *v, int max)
{
	int n = 0;

	for (s = skip_blanks(s, end); s < end; s = skip_blanks(s, end)) {
		if (n == max || parse_u64(&s, end, &v[n]) ||
		    (s < end && *s != ' ' && *s != '\t' && *s != '\r'))
			return -1;
		n++;
	}
	return n;
}

/* events: line -> column index of each of our events (-1 when absent). */
static int parse_events(const char *s, const char *end, int col[CG_NEV], int *ncols)
{
	int n = 0;

	for (int e = 0; e < CG_NEV; e++)
		col[e] = -1;
	for (s = skip_blanks(s, end); s < end; s = skip_blanks(s, end)) {
		const char *w = s;
		while (s < end && *s != ' ' && *s != '\t' && *s != '\r')
			s++;
		if (n == MAX_COLS)
			return -1;
		for (int e = 0; e < CG_NEV; e++)
			if (strlen(rb_cg_ev_names[e]) == (size_t)(s - w) &&
			    !memcmp(w, rb_cg_ev_names[e], (size_t)(s - w)))
				col[e] = n;
		n++;
	}
	*ncols = n;
	return n ? 0 : -1;
}

/* Parse state of a cachegrind file. */
struct cg_state {
	int col[CG_NEV], ncols, summary;
	struct rb_cg_fn *cur;
	size_t cap;
	char file[sizeof(((struct rb_cg_fn *)0)->file)]; /* the current fl= */
};

/* Copy a counted string into a fixed buffer, truncating. */
static void copy_field(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* The row of function s[0..n) in the current file, created when new. */
static struct rb_cg_fn *find_fn(struct rb_cg_profile *p, struct cg_state *st, const char *s,
				size_t n)
{
	char name[sizeof(p->fn[0].name)];

	copy_field(name, sizeof(name), s, n);
	for (size_t i = 0; i < p->nfn; i++)
		if (!strcmp(p->fn[i].name, name) && !strcmp(p->fn[i].file, st->file))
			return &p->fn[i];
	if (p->nfn == XP_VG_MAX_FNS)
		return NULL;
	if (xp_grow((void **)&p->fn, &st->cap, p->nfn + 1, sizeof(*p->fn)))
		return NULL;
	struct rb_cg_fn *f = &p->fn[p->nfn++];
	memset(f, 0, sizeof(*f));
	memcpy(f->name, name, sizeof(name));
	memcpy(f->file, st->file, sizeof(f->file));
	return f;
}

/* Add one count line's columns to `ev` through the column map. */
static void add_cols(uint64_t *ev, const uint64_t *v, int n, const int col[CG_NEV])
{
	for (int e = 0; e < CG_NEV; e++)
		if (col[e] >= 0 && col[e] < n)
			ev[e] += v[col[e]];
}

static int cg_line(struct cursor *c, struct rb_cg_profile *p, struct cg_state *st, char *err,
		   size_t errlen, const char *name)
{
	uint64_t v[MAX_COLS + 1];
	const char *rest, *end = c->line + c->len;

	if (starts(c, "events:", &rest)) {
		if (st->ncols)
			return fail(err, errlen, name, c->no, "second events: line");
		if (parse_events(rest, end, st->col, &st->ncols))
			return fail(err, errlen, name, c->no, "bad events: line");
		for (int e = 0; e < CG_NEV; e++)
			p->have |= (uint64_t)(st->col[e] >= 0) << e;
		return 0;
	}
	if (starts(c, "fl=", &rest)) {
		copy_field(st->file, sizeof(st->file), rest, (size_t)(end - rest));
		return 0;
	}
	if (starts(c, "fn=", &rest)) {
		if (!(st->cur = find_fn(p, st, rest, (size_t)(end - rest))))
			return fail(err, errlen, name, c->no, "too many functions");
		return 0;
	}
	if (starts(c, "summary:", &rest)) {
		int n = st->ncols ? parse_counts(rest, end, v, st->ncols) : -1;
		if (n < 0)
			return fail(err, errlen, name, c->no, "bad summary: line");
		memset(p->total, 0, sizeof(p->total));
		add_cols(p->total, v, n, st->col);
		st->summary = 1;
		return 0;
	}
	if (c->len && c->line[0] >= '0' && c->line[0] <= '9') {
		/* "<line> <count>...": trailing zero counts may be omitted. */
		int n = st->ncols ? parse_counts(c->line, end, v, st->ncols + 1) : -1;
		if (n < 1 || !st->cur)
			return fail(err, errlen, name, c->no,
				    "count line outside a function or malformed");
		add_cols(st->cur->ev, v + 1, n - 1, st->col);
	}
	return 0; /* desc:, cmd:, fi=, fe=, blank lines: not needed */
}

int rb_cg_parse(const char *name, const char *buf, size_t len, struct rb_cg_profile *out, char *err,
		size_t errlen)
{
	struct cursor c = { buf, buf + len, NULL, 0, 0 };
	struct cg_state st;
	int rc = 0;

	memset(&st, 0, sizeof(st));
	memset(out, 0, sizeof(*out));
	while (!rc && next_line(&c))
		rc = cg_line(&c, out, &st, err, errlen, name);
	if (!rc && (!st.ncols || !st.summary))
		rc = fail(err, errlen, name, c.no, "no %s line: not a cachegrind.out file",
			  st.ncols ? "summary:" : "events:");
	if (rc)
		rb_cg_free(out);
	return rc;
}

/* Does `file` start with `prefix`, or have it right after one of its '/'? */
static int under(const char *file, const char *prefix, size_t n)
{
	if (!strncmp(file, prefix, n))
		return 1;
	for (const char *f = strchr(file, '/'); f; f = strchr(f + 1, '/'))
		if (!strncmp(f + 1, prefix, n))
			return 1;
	return 0;
}

void rb_cg_filter(struct rb_cg_profile *p, const char *prefix)
{
	size_t kept = 0, n = strlen(prefix);

	memset(p->sel, 0, sizeof(p->sel));
	for (size_t i = 0; i < p->nfn; i++) {
		if (!under(p->fn[i].file, prefix, n))
			continue;
		for (int e = 0; e < CG_NEV; e++)
			p->sel[e] += p->fn[i].ev[e];
		p->fn[kept++] = p->fn[i];
	}
	p->nfn = kept;
	p->filtered = 1;
}

void rb_cg_free(struct rb_cg_profile *p)
{
	free(p->fn);
	p->fn = NULL;
	p->nfn = 0;
}

int rb_cl_parse(const char *name, const char *buf, size_t len, long n, struct rb_cl_profile *out,
		char *err, size_t errlen)
{
	struct cursor c = { buf, buf + len, NULL, 0, 0 };
	const char *rest;
	int events = 0;

	memset(out, 0, sizeof(*out));
	while (next_line(&c)) {
		uint64_t v;
		if (starts(&c, "events:", &rest))
			events = 1;
		if (!starts(&c, "calls=", &rest))
			continue;
		/* "calls=<count> <target position>" */
		if (parse_u64(&rest, c.line + c.len, &v))
			return fail(err, errlen, name, c.no, "bad calls= count");
		out->total_calls += v;
		out->mult_paths += n > 0 && v > (uint64_t)n;
	}
	if (!events)
		return fail(err, errlen, name, c.no, "no events: line: not a callgrind.out file");
	return 0;
}

int rb_ms_parse(const char *name, const char *buf, size_t len, struct rb_ms_profile *out, char *err,
		size_t errlen)
{
	struct cursor c = { buf, buf + len, NULL, 0, 0 };
	uint64_t prev2 = 0, prev = 0, v;
	const char *rest;

	memset(out, 0, sizeof(*out));
	while (next_line(&c)) {
		if (!starts(&c, "mem_heap_B=", &rest))
			continue;
		if (parse_u64(&rest, c.line + c.len, &v))
			return fail(err, errlen, name, c.no, "bad mem_heap_B= value");
		/* prev is an interior local maximum when strictly above both neighbours. */
		if (out->nsnap >= 2 && prev > prev2 && prev > v)
			out->local_maxima++;
		if (v > out->peak_bytes)
			out->peak_bytes = v;
		prev2 = prev;
		prev = v;
		out->nsnap++;
	}
	if (out->nsnap == 0)
		return fail(err, errlen, name, c.no, "no mem_heap_B= line: not a massif.out file");
	return 0;
}
