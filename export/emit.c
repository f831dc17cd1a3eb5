// SPDX-License-Identifier: MIT
/*
 * emit.c - the export writer. Output is streamed item by item (a turn's
 * events are freed once written), each written straight to the file in
 * cJSON_PrintUnformatted's exact text: cJSON prints every number with
 * "%1.15g" and reads it back with sscanf to check it, which was a fifth of
 * the export's CPU time; whole numbers below 1e15 are printed as integers
 * here (the same digits), other numbers as cJSON does, and exact integers
 * (lib/json_int.h: start_ns past 2^53) as their kept literal.
 */
#include "export/walk.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#define EXACT_MAX 1e15 /* whole numbers below it print the same as "%lld" and "%1.15g" */

/* cJSON's compare_double: what "%1.15g" must read back as. */
static int same_double(double a, double b)
{
	double max = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	return fabs(a - b) <= max * DBL_EPSILON;
}

static void put_number(FILE *f, const cJSON *n)
{
	double d = n->valuedouble;
	char text[32];

	if (n->valuestring) /* an exact integer's literal */
		fputs(n->valuestring, f);
	else if (isnan(d) || isinf(d))
		fputs("null", f);
	else if (d == floor(d) && fabs(d) < EXACT_MAX && (d != 0 || !signbit(d)))
		fprintf(f, "%lld", (long long)d);
	else {
		snprintf(text, sizeof(text), "%1.15g", d);
		if (!same_double(strtod(text, NULL), d))
			snprintf(text, sizeof(text), "%1.17g", d);
		fputs(text, f);
	}
}

/* The escape of byte c in a JSON string, as cJSON writes it; NULL when c stands as it is. */
static const char *escape(unsigned char c, char *u)
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\b':
		return "\\b";
	case '\f':
		return "\\f";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	}
	if (c >= 32)
		return NULL;
	snprintf(u, 7, "\\u%04x", c);
	return u;
}

/* A JSON string (NULL is ""): runs of plain bytes in one write, escapes between. */
static void put_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char u[7];

	putc_unlocked('"', f);
	for (;;) {
		const unsigned char *run = p;
		const char *esc = NULL;

		while (*p && !(esc = escape(*p, u)))
			p++;
		fwrite_unlocked(run, 1, (size_t)(p - run), f);
		if (!*p++)
			break;
		fputs(esc, f);
	}
	putc_unlocked('"', f);
}

/* item as cJSON_PrintUnformatted writes it; -1 where cJSON fails (raw text NULL, bad type). */
static int put_value(FILE *f, const cJSON *item)
{
	int rc = 0;

	switch (item->type & 0xff) {
	case cJSON_NULL:
		fputs("null", f);
		return 0;
	case cJSON_False:
		fputs("false", f);
		return 0;
	case cJSON_True:
		fputs("true", f);
		return 0;
	case cJSON_Number:
		put_number(f, item);
		return 0;
	case cJSON_Raw:
		if (!item->valuestring)
			return -1;
		fputs(item->valuestring, f);
		return 0;
	case cJSON_String:
		put_string(f, item->valuestring);
		return 0;
	case cJSON_Array:
	case cJSON_Object:
		putc_unlocked(cJSON_IsArray(item) ? '[' : '{', f);
		for (const cJSON *c = item->child; c && !rc; c = c->next) {
			if (c != item->child)
				putc_unlocked(',', f);
			if (cJSON_IsObject(item)) {
				put_string(f, c->string);
				putc_unlocked(':', f);
			}
			rc = put_value(f, c);
		}
		putc_unlocked(cJSON_IsArray(item) ? ']' : '}', f);
		return rc;
	default:
		return -1;
	}
}

void xe_put(struct xe_out *o, cJSON *item)
{
	if (!o->failed && !item)
		o->failed = 1;
	if (!o->failed) {
		if (o->nitems++)
			fputs(",\n", o->f);
		if (put_value(o->f, item))
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
