/* SPDX-License-Identifier: MIT */
/*
 * findings.c - PERF findings. Keys are inserted in byte order (the original
 * wrote json.dumps(sort_keys=True)), so the file is deterministic.
 */
#include "rubric/findings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "rubric/score.h"

const char *const rb_prescriptions[D_COUNT] = {
	[D_SCALING] = "Review scaling sub-checks. Memoize, precompute, or restructure hot paths.",
	[D_WALL] = "Reduce measurement noise: set governor=performance, increase rounds.",
	[D_CPU] = "Reduce hotspot concentration. Consider splitting large functions.",
	[D_L1] =
		"Improve data locality: struct-of-arrays, cache-line alignment, sequential access.",
	[D_LL] = "Reduce working set size or improve spatial locality.",
	[D_BRANCH] = ("Replace unpredictable branches with cmov, lookup tables, or branchless "
		      "arithmetic."),
	[D_MEMORY] = "Pre-allocate buffers, use object pools, reduce allocation churn.",
};

/* Finding metric names that differ from the dimension's payload key. */
static const struct {
	int dim;
	const char *key, *metric;
} metric_names[] = {
	{ D_WALL, "cv", "wall_time_cv" },
	{ D_L1, "miss_pct", "l1_miss_rate" },
	{ D_LL, "miss_pct", "ll_miss_rate" },
	{ D_BRANCH, "miss_pct", "branch_mispred_rate" },
};

void rb_finding_id(const char *root, const char *metric, char id[17])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	char in[1200];
	int len = snprintf(in, sizeof(in), "perf-benchmark|%s|<workload>|%s", root, metric);

	if (len < 0 || len >= (int)sizeof(in) ||
	    !EVP_Digest(in, (size_t)len, md, &n, EVP_sha1(), NULL) || n < 8) {
		snprintf(id, 17, "0000000000000000");
		return;
	}
	for (int i = 0; i < 8; i++)
		snprintf(id + 2 * i, 3, "%02x", md[i]);
}

static cJSON *finding(const char *root, const char *metric, double value, double threshold,
		      enum rb_tierv tier, int dim)
{
	cJSON *f = cJSON_CreateObject();
	char id[17];

	rb_finding_id(root, metric, id);
	cJSON_AddStringToObject(f, "confidence", "high");
	cJSON_AddArrayToObject(f, "evidence");
	cJSON_AddStringToObject(f, "id", id);
	cJSON_AddStringToObject(f, "leaf", "perf-benchmark");
	cJSON *loc = cJSON_AddObjectToObject(f, "location");
	cJSON_AddNumberToObject(loc, "line_end", 0);
	cJSON_AddNumberToObject(loc, "line_start", 0);
	cJSON_AddStringToObject(loc, "symbol", "<workload>");
	cJSON *m = cJSON_AddObjectToObject(f, "metric");
	cJSON_AddStringToObject(m, "name", metric);
	cJSON_AddNumberToObject(m, "threshold", threshold);
	cJSON_AddNumberToObject(m, "value", value);
	cJSON_AddStringToObject(f, "path", root);
	cJSON_AddStringToObject(f, "severity", tier == T_FAIL ? "high" : "medium");
	cJSON_AddStringToObject(f, "signal", "PERF");
	cJSON_AddStringToObject(f, "suggested_action", rb_prescriptions[dim]);
	return f;
}

static const char *metric_name(int dim, const char *key)
{
	for (size_t i = 0; i < sizeof(metric_names) / sizeof(metric_names[0]); i++)
		if (metric_names[i].dim == dim && !strcmp(metric_names[i].key, key))
			return metric_names[i].metric;
	return key;
}

static int by_metric(const void *a, const void *b)
{
	const cJSON *x = *(cJSON *const *)a, *y = *(cJSON *const *)b;
	const char *nx = cJSON_GetObjectItem(cJSON_GetObjectItem(x, "metric"), "name")->valuestring;
	const char *ny = cJSON_GetObjectItem(cJSON_GetObjectItem(y, "metric"), "name")->valuestring;

	return strcmp(nx, ny);
}

/* Findings of one dimension into items[]; returns the new count. */
static int dim_findings(const struct rb_score *s, int d, const char *root, cJSON **items, int n)
{
	if (d == D_SCALING) {
		for (int i = 0; i < S_COUNT; i++)
			if (s->sub_present[i] &&
			    (s->sub_tier[i] == T_FAIL || s->sub_tier[i] == T_WARN))
				items[n++] = finding(root, rb_sub_names[i], s->sub_value[i],
						     s->sub_pass[i], s->tier, d);
		return n;
	}
	for (int i = 0; i < s->nm; i++)
		items[n++] = finding(root, metric_name(d, s->m[i].key), s->m[i].value, s->m[i].pass,
				     s->tier, d);
	return n;
}

cJSON *rb_findings_json(const struct rb_result *r, const char *root)
{
	cJSON *items[D_COUNT * (XP_RB_MAX_METRICS + S_COUNT)];
	cJSON *arr = cJSON_CreateArray();
	int n = 0;

	for (int d = 0; d < D_COUNT; d++) {
		const struct rb_score *s = &r->dim[d];
		if (s->tier == T_FAIL || s->tier == T_WARN)
			n = dim_findings(s, d, root, items, n);
	}
	/* One root for every finding: sorting by (path, metric) is by metric. */
	qsort(items, (size_t)n, sizeof(items[0]), by_metric);
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, items[i]);
	return arr;
}
