/* SPDX-License-Identifier: MIT */
/*
 * regress.c - read earlier runs (outside data: parsed with cJSON, every
 * field checked for type) and compare tiers.
 */
#include "rubric/regress.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

/* "PASS" -> T_PASS, ..., "N/A (noise)" -> T_NOISE; -1 when unknown. */
static int tier_parse(const char *s)
{
	for (int t = 0; s && t < 5; t++)
		if (!strcmp(s, rb_tierv_names[t]))
			return t;
	return -1;
}

void rb_regress(const struct rb_ref *ref, const struct rb_result *cur,
		   struct rb_regressions *out)
{
	out->n = 0;
	for (int d = 0; d < D_COUNT; d++) {
		enum rb_tierv a = ref->tier[d], b = cur->dim[d].tier;
		/* N/A and N/A (noise) rank below FAIL, WARN, PASS: the drop is the distance */
		if (b >= T_FAIL && a > b)
			out->r[out->n++] = (struct rb_regr){ d, a, b, (int)(a - b) };
	}
}

/* Tiers from a {name: tier} object, or from {name: {tier: ...}} when nested. */
static void read_tiers(const cJSON *dims, struct rb_ref *ref)
{
	for (int d = 0; d < D_COUNT; d++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(dims, rb_dim_names[d]);
		if (cJSON_IsObject(v))
			v = cJSON_GetObjectItemCaseSensitive(v, "tier");
		int t = cJSON_IsString(v) ? tier_parse(v->valuestring) : -1;
		ref->tier[d] = t < 0 ? T_NA : (enum rb_tierv)t;
	}
}

/* line:col of byte offset off in buf. */
static void position(const char *buf, size_t off, int *line, int *col)
{
	size_t bol = 0; /* where the line starts */

	*line = 1;
	for (size_t i = 0; i < off; i++)
		if (buf[i] == '\n') {
			(*line)++;
			bol = i + 1;
		}
	*col = (int)(off - bol) + 1;
}

static void baseline_memory(const cJSON *dims, struct rb_base_mem *mem)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(dims, "Memory Profile");
	const cJSON *peak = cJSON_GetObjectItemCaseSensitive(m, "peak_bytes");
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(m, "source");

	memset(mem, 0, sizeof(*mem));
	if (cJSON_IsNumber(peak) && peak->valuedouble > 0)
		mem->peak_bytes = peak->valuedouble;
	if (cJSON_IsString(src))
		snprintf(mem->source, sizeof(mem->source), "%s", src->valuestring);
}

int rb_baseline_parse(const char *name, const char *buf, size_t len, struct rb_ref *ref,
			 struct rb_base_mem *mem, char *err, size_t errlen)
{
	const char *end = NULL;
	int line, col;
	cJSON *doc = cJSON_ParseWithLengthOpts(buf, len, &end, 0);

	memset(ref, 0, sizeof(*ref));
	if (!doc) {
		size_t off = end && end >= buf && end <= buf + len ? (size_t)(end - buf) : 0;
		position(buf, off, &line, &col);
		snprintf(err, errlen, "%s:%d:%d: invalid JSON", name, line, col);
		return -1;
	}
	const cJSON *rubric = cJSON_GetObjectItemCaseSensitive(doc, "rubric");
	const cJSON *dims = cJSON_GetObjectItemCaseSensitive(rubric, "dimensions");
	if (!cJSON_IsObject(dims)) {
		snprintf(err, errlen,
			 "%s:1:1: not a benchmark_summary.json (no rubric.dimensions "
			 "object)",
			 name);
		cJSON_Delete(doc);
		return -1;
	}
	read_tiers(dims, ref);
	const cJSON *total = cJSON_GetObjectItemCaseSensitive(rubric, "total");
	ref->total = cJSON_IsNumber(total) ? total->valueint : 0;
	baseline_memory(dims, mem);
	cJSON_Delete(doc);
	return 0;
}

/* One ledger line: 0 when it has a dimensions object and a numeric rubric_total. */
static int ledger_line(const char *s, size_t n, struct rb_ref *ref)
{
	cJSON *doc = cJSON_ParseWithLength(s, n);
	const cJSON *dims = cJSON_GetObjectItemCaseSensitive(doc, "dimensions");
	const cJSON *total = cJSON_GetObjectItemCaseSensitive(doc, "rubric_total");
	int ok = cJSON_IsObject(dims) && cJSON_IsNumber(total);

	if (ok) {
		read_tiers(dims, ref);
		ref->total = total->valueint;
	}
	cJSON_Delete(doc);
	return ok ? 0 : -1;
}

static int blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

void rb_ledger_parse(const char *name, const char *buf, size_t len, struct rb_ledger *l)
{
	const char *p = buf, *end = buf + len;
	int no = 0;

	memset(l, 0, sizeof(*l));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		struct rb_ref r;

		no++;
		if (!blank(p, n)) {
			if (ledger_line(p, n, &r) == 0) {
				l->last = r;
				if (l->entries++ == 0 || r.total > l->best.total)
					l->best = r;
			} else if (l->corrupt++ < 4) {
				snprintf(l->warnings[l->corrupt - 1], XP_RB_WHY,
					 "Skipped corrupt line %d in %s", no, name);
			}
		}
		p = nl ? nl + 1 : end;
	}
}
