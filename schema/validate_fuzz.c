/* SPDX-License-Identifier: MIT */
/*
 * validate_fuzz.c - libFuzzer target for the TurnTrace validator: any bytes
 * must give a bounded error count, no crash, no leak, no sanitizer report;
 * values reach a sink only while no error was found, containers open and
 * close in pairs; whatever the tokenizer accepts, cJSON parses (the
 * tokenizer is the stricter of the two); and the bytes read in pieces through
 * a window of a few bytes give the same events and the same error as whole.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "schema/jtok.h"
#include "schema/validate.h"

struct seen {
	int errors;
	long depth;
};

static void count(const struct sc_verror *e, void *ctx)
{
	char line[1024];

	sc_verror_format(e, line, sizeof(line)); /* exercise formatting of every error */
	++((struct seen *)ctx)->errors;
}

static int value(void *ctx, const struct sc_vval *v)
{
	struct seen *s = ctx;

	if (s->errors) /* errors are held to the end: none may have been reported yet */
		abort();
	s->depth += v->ev->type == SC_J_OBJECT || v->ev->type == SC_J_ARRAY;
	s->depth -= v->ev->type == SC_J_END;
	if (s->depth < 0)
		abort();
	return 0;
}

/* The input in pieces of at most `piece` bytes. */
struct pieces {
	const unsigned char *p;
	size_t left, piece;
};

static ssize_t read_pieces(void *ctx, void *buf, size_t cap)
{
	struct pieces *in = ctx;
	size_t n = cap < in->piece ? cap : in->piece;

	n = n < in->left ? n : in->left;
	memcpy(buf, in->p, n);
	in->p += n;
	in->left -= n;
	return (ssize_t)n;
}

static int same_str(const char *a, const char *b, size_t n)
{
	return a == b || (a && b && !memcmp(a, b, n));
}

static int same_event(const struct sc_jev *a, const struct sc_jev *b)
{
	return a->type == b->type && a->pos.line == b->pos.line && a->pos.col == b->pos.col &&
	       a->depth == b->depth && same_str(a->key, b->key, a->key ? strlen(a->key) + 1 : 0) &&
	       a->len == b->len && same_str(a->str, b->str, a->len) && a->litlen == b->litlen &&
	       same_str(a->lit, b->lit, a->litlen) && a->integer == b->integer &&
	       !memcmp(&a->num, &b->num, sizeof(a->num));
}

/* Whole and in pieces through a small window: the same events, the same end. */
static void check_pieces(const unsigned char *data, size_t size)
{
	struct pieces in = { data, size, 1 + (size ? data[size - 1] % 5 : 0) };
	struct sc_jtok whole, cut;
	struct sc_jev a, b;
	int ra, rb;

	if (sc_jtok_init(&whole, (const char *)data, size, XP_VALIDATE_MAX_DEPTH,
			 XP_VALIDATE_MAX_VALUES) ||
	    sc_jtok_init_read(&cut, read_pieces, &in, 1 + (size ? data[0] % 8 : 0),
			      XP_VALIDATE_MAX_DEPTH, XP_VALIDATE_MAX_VALUES))
		abort();
	do {
		ra = sc_jtok_next(&whole, &a);
		rb = sc_jtok_next(&cut, &b);
		if (ra != rb || (ra > 0 && !same_event(&a, &b)))
			abort();
	} while (ra > 0);
	if (ra < 0 && (whole.err.line != cut.err.line || whole.err.col != cut.err.col ||
		       strcmp(whole.err_ptr, cut.err_ptr) || strcmp(whole.err_msg, cut.err_msg)))
		abort();
	sc_jtok_free(&whole);
	sc_jtok_free(&cut);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct seen s = { 0, 0 };
	struct sc_vsink sink = { value, &s };
	int nerr = sc_validate_buffer_into("fuzz", (const char *)data, size, count, &s, &sink);
	struct sc_jtok tok;
	struct sc_jev ev;
	int rc = -1;

	if (nerr != s.errors || nerr > XP_VALIDATE_MAX_ERRORS + 1 || (!nerr && s.depth))
		abort();
	if (!sc_jtok_init(&tok, (const char *)data, size, XP_VALIDATE_MAX_DEPTH,
			  XP_VALIDATE_MAX_VALUES))
		while ((rc = sc_jtok_next(&tok, &ev)) > 0)
			;
	sc_jtok_free(&tok);
	check_pieces(data, size);
	if (!rc) {
		cJSON *doc = cJSON_ParseWithLength((const char *)data, size);

		if (!doc)
			abort();
		cJSON_Delete(doc);
	}
	return 0;
}
