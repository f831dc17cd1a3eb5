/* SPDX-License-Identifier: MIT */
/*
 * validate_fuzz.c - libFuzzer target for the TurnTrace validator: any bytes
 * must give a bounded error count, no crash, no leak, no sanitizer report;
 * values reach a sink only while no error was found, containers open and
 * close in pairs; and whatever the tokenizer accepts, cJSON parses (the
 * tokenizer is the stricter of the two).
 */
#include <stdlib.h>

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
	if (!rc) {
		cJSON *doc = cJSON_ParseWithLength((const char *)data, size);

		if (!doc)
			abort();
		cJSON_Delete(doc);
	}
	return 0;
}
