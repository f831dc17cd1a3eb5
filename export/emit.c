// SPDX-License-Identifier: MIT
/*
 * emit.c - the export writer. Output is streamed item by item (a turn's
 * events are freed once written), each built in a lib/json_out buffer and
 * written to the file in one call, in cJSON_PrintUnformatted's exact text:
 * cJSON prints every number with "%1.15g" and reads it back with sscanf to
 * check it, which was a fifth of the export's CPU time; whole numbers below
 * 1e15 are printed as integers here (the same digits), other numbers as
 * cJSON does, and exact integers (lib/json_int.h: start_ns past 2^53) as
 * their kept literal.
 */
#include "export/walk.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXACT_MAX 1e15 /* whole numbers below it print the same as "%lld" and "%1.15g" */

/* cJSON's compare_double: what "%1.15g" must read back as. */
static int same_double(double a, double b)
{
	double max = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	return fabs(a - b) <= max * DBL_EPSILON;
}

/* The text of number n (not an exact integer's literal), in text[32]. */
static const char *number_text(const cJSON *n, char *text)
{
	double d = n->valuedouble;

	if (isnan(d) || isinf(d))
		return "null";
	if (d == floor(d) && fabs(d) < EXACT_MAX && (d != 0 || !signbit(d)))
		snprintf(text, 32, "%lld", (long long)d);
	else {
		snprintf(text, 32, "%1.15g", d);
		if (!same_double(strtod(text, NULL), d))
			snprintf(text, 32, "%1.17g", d);
	}
	return text;
}

/*
 * item as cJSON_PrintUnformatted writes it, as member key of j (NULL: an
 * element); -1 where cJSON fails (raw text NULL, bad type).
 */
static int put_value(struct xp_jout *j, const char *key, const cJSON *item)
{
	const char *raw = item->valuestring; /* a string, Raw text or a Number's exact literal */
	char text[32];
	int rc = 0;

	switch (item->type & 0xff) {
	case cJSON_NULL:
		raw = "null";
		break;
	case cJSON_False:
	case cJSON_True:
		xp_jout_bool(j, key, cJSON_IsTrue(item));
		return 0;
	case cJSON_Number:
		if (!raw)
			raw = number_text(item, text);
		break;
	case cJSON_Raw:
		if (!raw)
			return -1;
		break;
	case cJSON_String:
		xp_jout_str(j, key, raw ? raw : "");
		return 0;
	case cJSON_Array:
	case cJSON_Object: {
		char brace = cJSON_IsArray(item) ? '[' : '{';

		xp_jout_open(j, key, brace);
		for (const cJSON *c = item->child; c && !rc; c = c->next)
			rc = put_value(j, brace == '[' ? NULL : c->string ? c->string : "", c);
		xp_jout_close(j, brace + 2); /* ']' and '}' follow '[' and '{' by two */
		return rc;
	}
	default:
		return -1;
	}
	xp_jout_raw(j, key, raw, strlen(raw));
	return 0;
}

void xe_put(struct xe_out *o, cJSON *item)
{
	if (!o->failed && !item)
		o->failed = 1;
	if (!o->failed) {
		if (o->nitems++)
			fputs(",\n", o->f);
		xp_jout_reset(&o->j);
		if (put_value(&o->j, NULL, item) || o->j.err ||
		    fwrite_unlocked(o->j.buf, 1, o->j.len, o->f) != o->j.len)
			o->failed = 1;
	}
	cJSON_Delete(item);
}

void xe_puts(struct xe_out *o, const char *text)
{
	fputs(text, o->f);
}

void xe_out_list_reset(struct xe_out *o)
{
	o->nitems = 0;
}

cJSON *xe_u64_raw(uint64_t v)
{
	char text[24];

	snprintf(text, sizeof(text), "%" PRIu64, v);
	return cJSON_CreateRaw(text);
}
