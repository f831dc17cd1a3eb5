// SPDX-License-Identifier: MIT
/*
 * json_int.c - exact 64-bit integers in cJSON documents (see json_int.h).
 *
 * Literals are paired with nodes without a second JSON parser: outside
 * strings, a '-' or a digit can only start a number, so the number literals
 * of the text, in order, are the number nodes of the tree in pre-order.
 */
#include "lib/json_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXACT_DIGITS 16   /* from 1e15 on cJSON prints integers inexactly */
#define TWO_POW_64 18446744073709551616.0
#define TWO_POW_63 9223372036854775808.0

/* xp_json_number keeps the literal from EXACT_DIGITS digits on, a plain number below. */
cJSON *xp_json_exact_u64(uint64_t v)
{
	char lit[24];
	int n = snprintf(lit, sizeof(lit), "%llu", (unsigned long long)v);

	return xp_json_number(lit, (size_t)n, (double)v);
}

cJSON *xp_json_exact_i64(int64_t v)
{
	char lit[24];
	int n = snprintf(lit, sizeof(lit), "%lld", (long long)v);

	return xp_json_number(lit, (size_t)n, (double)v);
}

cJSON *xp_json_add_u64(cJSON *obj, const char *key, uint64_t v)
{
	cJSON *n = xp_json_exact_u64(v);

	if (n && !cJSON_AddItemToObject(obj, key, n)) {
		cJSON_Delete(n);
		n = NULL;
	}
	return n;
}

/* The next number literal outside strings in [*p, end); NULL when there is none. */
static const char *next_number(const char **p, const char *end, size_t *len)
{
	int in_string = 0;

	for (const char *s = *p; s < end; s++) {
		if (in_string) {
			if (*s == '\\')
				s++;
			else if (*s == '"')
				in_string = 0;
		} else if (*s == '"') {
			in_string = 1;
		} else if (*s == '-' || (*s >= '0' && *s <= '9')) {
			const char *e = s + 1;

			while (e < end && strchr("0123456789+-.eE", *e) && *e)
				e++;
			*p = e;
			*len = (size_t)(e - s);
			return s;
		}
	}
	*p = end;
	return NULL;
}

static int long_integer(const char *lit, size_t len)
{
	size_t sign = lit[0] == '-';

	for (size_t i = sign; i < len; i++)
		if (lit[i] < '0' || lit[i] > '9')
			return 0;
	return len - sign >= EXACT_DIGITS;
}

cJSON *xp_json_number(const char *lit, size_t len, double d)
{
	cJSON *n = cJSON_CreateNumber(d);

	if (n && long_integer(lit, len) && !(n->valuestring = strndup(lit, len))) {
		cJSON_Delete(n);
		return NULL;
	}
	return n;
}

/* Keep the literals of n, its siblings and their descendants; -1 when out of memory. */
static int keep(cJSON *n, const char **p, const char *end)
{
	for (; n; n = n->next) {
		size_t len = 0;
		const char *lit = cJSON_IsNumber(n) ? next_number(p, end, &len) : NULL;

		if (lit && long_integer(lit, len) && !(n->valuestring = strndup(lit, len)))
			return -1;
		if (n->child && keep(n->child, p, end))
			return -1;
	}
	return 0;
}

cJSON *xp_json_parse(const char *buf, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(buf, len);
	const char *p = buf;

	if (root && keep(root, &p, buf + len)) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

static int literal(const cJSON *n, int is_signed, unsigned long long *u, long long *s)
{
	char *end;

	if (!is_signed && n->valuestring[0] == '-')
		return -1;
	errno = 0;
	if (is_signed)
		*s = strtoll(n->valuestring, &end, 10);
	else
		*u = strtoull(n->valuestring, &end, 10);
	return errno || *end || end == n->valuestring ? -1 : 0;
}

int xp_json_get_u64(const cJSON *n, uint64_t *out)
{
	unsigned long long u;

	if (!cJSON_IsNumber(n))
		return -1;
	if (n->valuestring) {
		if (literal(n, 0, &u, NULL))
			return -1;
		*out = u;
		return 0;
	}
	if (!(n->valuedouble >= 0 && n->valuedouble < TWO_POW_64))
		return -1;
	*out = (uint64_t)n->valuedouble;
	return 0;
}

int xp_json_get_i64(const cJSON *n, int64_t *out)
{
	long long s;

	if (!cJSON_IsNumber(n))
		return -1;
	if (n->valuestring) {
		if (literal(n, 1, NULL, &s))
			return -1;
		*out = s;
		return 0;
	}
	if (!(n->valuedouble >= -TWO_POW_63 && n->valuedouble < TWO_POW_63))
		return -1;
	*out = (int64_t)n->valuedouble;
	return 0;
}

/*
 * Turn numbers with a literal into raw nodes (printed verbatim) and back. A
 * raw node from cJSON_CreateRaw has valuedouble 0, one of ours never (its
 * literal is at least 1e15 away from 0), so the way back is unambiguous.
 */
static void flip(cJSON *n, int to_raw)
{
	for (; n; n = n->next) {
		int type = n->type & 0xff;

		if (to_raw && type == cJSON_Number && n->valuestring)
			n->type = (n->type & ~0xff) | cJSON_Raw;
		else if (!to_raw && type == cJSON_Raw && n->valuedouble != 0)
			n->type = (n->type & ~0xff) | cJSON_Number;
		flip(n->child, to_raw);
	}
}

char *xp_json_print(cJSON *root, int formatted)
{
	char *text;

	flip(root, 1);
	text = formatted ? cJSON_Print(root) : cJSON_PrintUnformatted(root);
	flip(root, 0);
	return text;
}

cJSON *xp_json_item(cJSON *arr)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToArray(arr, o);
	return o;
}

int xp_json_fput(cJSON *root, FILE *out)
{
	char *text = xp_json_print(root, 1);

	cJSON_Delete(root);
	if (!text)
		return -1;
	fprintf(out, "%s\n", text);
	free(text);
	return 0;
}
