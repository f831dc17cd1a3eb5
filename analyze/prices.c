// SPDX-License-Identifier: MIT
/*
 * prices.c - the price table: data, not code. Lines of `pattern input output
 * cache_read cache_write reasoning` (USD per million tokens, fnmatch(3)
 * patterns, first match wins), one `date YYYY-MM-DD` line, `#` comments. The
 * default is analyze/prices.tsv, compiled in (prices_default.c, generated);
 * `--prices FILE` replaces it. Every error names the file and line.
 */
#include "analyze/analyze.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/in_file.h"

#define PATTERN_MAX 64

const char *const xa_tok_names[XA_TOK_COUNT] = { "input", "output", "cache_read", "cache_write",
						 "reasoning" };

struct xa_price {
	char pattern[PATTERN_MAX];
	double usd_per_tok[XA_TOK_COUNT];
};

struct xa_prices {
	char source[256];
	char date[16];
	struct xa_price *rows;
	size_t n;
};

extern const char xa_prices_default_text[]; /* prices_default.c, from prices.tsv */

/* Split line into at most max whitespace-separated fields (in place); returns the count. */
static int fields(char *line, char **f, int max)
{
	char *save = NULL;
	int n = 0;

	for (char *p = strtok_r(line, " \t\r", &save); p; p = strtok_r(NULL, " \t\r", &save))
		if (n++ < max)
			f[n - 1] = p;
	return n;
}

static int is_date(const char *s)
{
	static const char shape[] = "dddd-dd-dd";

	for (size_t i = 0; i < sizeof(shape) - 1; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != '-')
			return 0;
	return s[sizeof(shape) - 1] == '\0';
}

/* A price per million tokens: a finite number >= 0 and < 1e6. */
static int parse_price(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !(v >= 0 && v < 1e6))
		return -1;
	*out = v / 1e6;
	return 0;
}

static int parse_row(struct xa_prices *p, char **f, int n, const char *name, unsigned ln,
		     FILE *err)
{
	struct xa_price *r;

	if (n != 1 + XA_TOK_COUNT) {
		fprintf(err, "%s:%u: expected a pattern and %d prices (input output cache_read "
			     "cache_write reasoning), found %d fields\n", name, ln, XA_TOK_COUNT, n);
		return -1;
	}
	if (strlen(f[0]) >= PATTERN_MAX) {
		fprintf(err, "%s:%u: pattern longer than %d characters\n", name, ln, PATTERN_MAX - 1);
		return -1;
	}
	r = &p->rows[p->n];
	snprintf(r->pattern, sizeof(r->pattern), "%s", f[0]);
	for (int k = 0; k < XA_TOK_COUNT; k++) {
		if (parse_price(f[1 + k], &r->usd_per_tok[k])) {
			fprintf(err, "%s:%u: %s price '%.40s' is not a number >= 0 (USD per million "
				     "tokens)\n", name, ln, xa_tok_names[k], f[1 + k]);
			return -1;
		}
	}
	p->n++;
	return 0;
}

static int parse_line(struct xa_prices *p, char *line, const char *name, unsigned ln, FILE *err)
{
	char *f[8];
	int n = fields(line, f, 8);

	if (!n || f[0][0] == '#')
		return 0;
	if (strcmp(f[0], "date"))
		return parse_row(p, f, n, name, ln, err);
	if (n != 2 || !is_date(f[1]) || p->date[0]) {
		fprintf(err, "%s:%u: %s\n", name, ln, p->date[0] ? "a second date line"
				: "expected 'date YYYY-MM-DD'");
		return -1;
	}
	snprintf(p->date, sizeof(p->date), "%s", f[1]);
	return 0;
}

int xa_prices_parse(const char *name, const char *text, size_t len, struct xa_prices **out,
		    FILE *err)
{
	struct xa_prices *p = calloc(1, sizeof(*p));
	char *buf = malloc(len + 1), *line = buf, *next;
	unsigned ln = 0;
	int rc = 0;

	*out = NULL;
	/* A row has at least 11 bytes ("a 0 0 0 0 0"): len / 8 + 1 rows always suffice. */
	if (!p || !buf || !(p->rows = calloc(len / 8 + 1, sizeof(*p->rows)))) {
		fprintf(err, "%s: out of memory\n", name);
		rc = -1;
	} else {
		memcpy(buf, text, len);
		buf[len] = '\0';
	}
	for (; !rc && line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		ln++;
		if (strlen(line) != (size_t)((next ? next - 1 : buf + len) - line)) {
			fprintf(err, "%s:%u: NUL byte in the line\n", name, ln);
			rc = -1;
		} else {
			rc = parse_line(p, line, name, ln, err);
		}
	}
	if (!rc && !p->date[0]) {
		fprintf(err, "%s: no 'date YYYY-MM-DD' line (when the prices were taken)\n", name);
		rc = -1;
	}
	free(buf);
	if (rc) {
		xa_prices_free(p);
		return -1;
	}
	snprintf(p->source, sizeof(p->source), "%s", name);
	*out = p;
	return 0;
}

int xa_prices_load(const char *path, struct xa_prices **out, FILE *err)
{
	char *text = NULL;
	size_t len = 0;
	/* lib/in_file: a regular file only (a FIFO or device never blocks), at most 16 MiB */
	int rc = xp_in_read(path, 1u << 24, &text, &len);

	*out = NULL;
	if (rc) {
		fprintf(err, "%s: %s\n", path, xp_in_strerror(rc));
		return -1;
	}
	rc = xa_prices_parse(path, text, len, out, err);
	free(text);
	return rc;
}

static struct xa_prices *default_table;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

static void parse_default(void)
{
	xa_prices_parse("default (analyze/prices.tsv)", xa_prices_default_text,
			strlen(xa_prices_default_text), &default_table, stderr);
}

const struct xa_prices *xa_prices_default(void)
{
	pthread_once(&default_once, parse_default);
	return default_table;
}

void xa_prices_free(struct xa_prices *p)
{
	if (!p)
		return;
	free(p->rows);
	free(p);
}

const char *xa_prices_date(const struct xa_prices *p)
{
	return p ? p->date : "";
}

const char *xa_prices_source(const struct xa_prices *p)
{
	return p ? p->source : "";
}

int xa_prices_match(const struct xa_prices *p, const char *model, double *usd_per_tok)
{
	for (size_t i = 0; p && model[0] && i < p->n; i++) {
		if (fnmatch(p->rows[i].pattern, model, 0))
			continue;
		memcpy(usd_per_tok, p->rows[i].usd_per_tok, sizeof(p->rows[i].usd_per_tok));
		return 0;
	}
	return -1;
}
