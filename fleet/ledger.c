// SPDX-License-Identifier: MIT
/*
 * ledger.c - the counters `xperf fleet serve` exports, kept monotonic.
 *
 * Each session brings a vector of counts (turns, time per L2 node and per L3
 * point, histogram buckets...: fleet_ctr_*), summed per (node, agent). Counts
 * recomputed from the files would go down when old traces are deleted (or
 * shrink), which Prometheus reads as a counter reset. The ledger remembers
 * each session's last vector; whatever a session loses (all of it when its
 * directory goes) moves to the "retired" vector of its (node, agent), so the
 * exported value, retired + the sessions' current vectors, never decreases.
 * The ledger is saved after every scan (atomically, mode 0600) and loaded at
 * start, so a restart of the reader does not reset the counters either.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "lib/atomic_file.h"
#include "lib/grow.h"
#include "lib/in_file.h"
#include "lib/json_int.h"

/* A ledger holds about 1 KiB per session: 256 MiB is far beyond any fleet node. */
#define LEDGER_MAX (256u << 20)

/* OpenTelemetry GenAI's bucket edges: gen_ai.server.time_to_first_token (TTFT) and
 * gen_ai.client.operation.duration (turns), in seconds; +Inf is implicit. */
const struct fleet_bucket fleet_ttft_buckets[] = {
	{ "0.001", 1000000 },	  { "0.005", 5000000 },	    { "0.01", 10000000 },
	{ "0.02", 20000000 },	  { "0.04", 40000000 },	    { "0.06", 60000000 },
	{ "0.08", 80000000 },	  { "0.1", 100000000 },	    { "0.25", 250000000 },
	{ "0.5", 500000000 },	  { "0.75", 750000000 },    { "1", 1000000000 },
	{ "2.5", 2500000000 },	  { "5", 5000000000 },	    { "7.5", 7500000000 },
	{ "10", 10000000000 },
};
const struct fleet_bucket fleet_turn_buckets[] = {
	{ "0.01", 10000000 },	  { "0.02", 20000000 },	    { "0.04", 40000000 },
	{ "0.08", 80000000 },	  { "0.16", 160000000 },    { "0.32", 320000000 },
	{ "0.64", 640000000 },	  { "1.28", 1280000000 },   { "2.56", 2560000000 },
	{ "5.12", 5120000000 },	  { "10.24", 10240000000 }, { "20.48", 20480000000 },
	{ "40.96", 40960000000 }, { "81.92", 81920000000 },
};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
const size_t fleet_ttft_nbuckets = COUNT(fleet_ttft_buckets);
const size_t fleet_turn_nbuckets = COUNT(fleet_turn_buckets);

size_t fleet_ctr_l3_turns(void)
{
	return FC_L2 + XP_DOMAIN_COUNT * XP_CAT_COUNT;
}

size_t fleet_ctr_l3_ns(void)
{
	return fleet_ctr_l3_turns() + th_l3_count;
}

size_t fleet_ctr_ttft(void)
{
	return fleet_ctr_l3_ns() + th_l3_count;
}

size_t fleet_ctr_turn(void)
{
	return fleet_ctr_ttft() + fleet_ttft_nbuckets + 2;
}

size_t fleet_ctr_usage(void)
{
	return fleet_ctr_turn() + fleet_turn_nbuckets + 2;
}

size_t fleet_ctr_len(void)
{
	return fleet_ctr_usage() + 2 * FU_LEN;
}

void fleet_ctr_observe(uint64_t *v, size_t base, const struct fleet_bucket *b, size_t nb,
		       uint64_t ns)
{
	for (size_t i = 0; i < nb; i++)
		v[base + i] += ns <= b[i].ns; /* cumulative, as Prometheus wants them */
	v[base + nb]++;                   /* _count (the +Inf bucket) */
	v[base + nb + 1] += ns;           /* _sum, in ns */
}

void fleet_ledger_free(struct fleet_ledger *l)
{
	for (size_t i = 0; i < l->nsessions; i++)
		free(l->sessions[i].v);
	for (size_t i = 0; i < l->nretired; i++)
		free(l->retired[i].v);
	free(l->sessions);
	free(l->retired);
	memset(l, 0, sizeof(*l));
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct fleet_sess_ctr *)a)->path,
		      ((const struct fleet_sess_ctr *)b)->path);
}

/* The retired vector of (node, agent), created zero; NULL on memory. */
static uint64_t *retired_of(struct fleet_ledger *l, const char *node, const char *agent)
{
	struct fleet_sess_ctr *p;

	for (size_t i = 0; i < l->nretired; i++)
		if (!strcmp(l->retired[i].node, node) && !strcmp(l->retired[i].agent, agent))
			return l->retired[i].v;
	if (xp_grow((void **)&l->retired, &l->cap_retired, l->nretired + 1, sizeof(*l->retired)))
		return NULL;
	p = memset(&l->retired[l->nretired], 0, sizeof(*p));
	if (!(p->v = calloc(fleet_ctr_len(), sizeof(*p->v))))
		return NULL;
	snprintf(p->node, sizeof(p->node), "%s", node);
	snprintf(p->agent, sizeof(p->agent), "%s", agent);
	l->nretired++;
	return p->v;
}

int fleet_ledger_apply(struct fleet_ledger *l, struct fleet_agg *a)
{
	size_t n = fleet_ctr_len();

	qsort(a->sess, a->nsess, sizeof(*a->sess), by_path);
	for (size_t i = 0; i < l->nsessions; i++) {
		const struct fleet_sess_ctr *old = &l->sessions[i];
		const struct fleet_sess_ctr *now = bsearch(old, a->sess, a->nsess, sizeof(*old),
							   by_path);
		uint64_t *r = retired_of(l, old->node, old->agent);

		if (!r)
			return -1;
		if (now && (strcmp(now->node, old->node) || strcmp(now->agent, old->agent)))
			now = NULL; /* relabelled: its old series keeps what it counted */
		for (size_t k = 0; k < n; k++)
			r[k] += now ? (old->v[k] > now->v[k] ? old->v[k] - now->v[k] : 0) : old->v[k];
	}
	for (size_t i = 0; i < l->nsessions; i++)
		free(l->sessions[i].v);
	free(l->sessions);
	l->sessions = a->sess; /* the ledger takes this scan's vectors */
	l->nsessions = a->nsess;
	a->sess = NULL;
	a->nsess = a->cap_sess = 0;
	return 0;
}

int fleet_ledger_expose(const struct fleet_ledger *l, struct fleet_agg *a)
{
	size_t n = fleet_ctr_len();

	for (size_t i = 0; i < a->nseries; i++)
		memset(a->series[i].ctr, 0, n * sizeof(uint64_t));
	for (int pass = 0; pass < 2; pass++) {
		const struct fleet_sess_ctr *e = pass ? l->retired : l->sessions;
		size_t ne = pass ? l->nretired : l->nsessions;

		for (size_t i = 0; i < ne; i++) {
			uint64_t *v = fleet_series_ctr(a, e[i].node, e[i].agent);

			if (!v)
				return -1;
			for (size_t k = 0; k < n; k++)
				v[k] += e[i].v[k];
		}
	}
	return 0;
}

static cJSON *entry_json(const struct fleet_sess_ctr *e)
{
	cJSON *o = cJSON_CreateObject(), *v = cJSON_AddArrayToObject(o, "v");

	cJSON_AddStringToObject(o, "path", e->path);
	cJSON_AddStringToObject(o, "node", e->node);
	cJSON_AddStringToObject(o, "agent", e->agent);
	for (size_t k = 0; k < fleet_ctr_len(); k++)
		cJSON_AddItemToArray(v, xp_json_exact_u64(e->v[k]));
	return o;
}

int fleet_ledger_save(const struct fleet_ledger *l, const char *path)
{
	cJSON *doc = cJSON_CreateObject(), *s, *r;
	char *text;
	int rc;

	cJSON_AddStringToObject(doc, "ledger", "xperf.fleet.serve");
	cJSON_AddNumberToObject(doc, "length", (double)fleet_ctr_len());
	s = cJSON_AddArrayToObject(doc, "sessions");
	r = cJSON_AddArrayToObject(doc, "retired");
	for (size_t i = 0; i < l->nsessions; i++)
		cJSON_AddItemToArray(s, entry_json(&l->sessions[i]));
	for (size_t i = 0; i < l->nretired; i++)
		cJSON_AddItemToArray(r, entry_json(&l->retired[i]));
	text = xp_json_print(doc, 0);
	cJSON_Delete(doc);
	if (!text)
		return -ENOMEM;
	rc = xp_write_file_atomic(path, text, strlen(text));
	free(text);
	return rc;
}

/* One entry of a saved list; -1 when malformed or out of memory. */
static int entry_read(const cJSON *j, struct fleet_sess_ctr *e)
{
	const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "path"));
	const char *node = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "node"));
	const char *agent = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "agent"));
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "v"), *x;
	size_t k = 0;

	memset(e, 0, sizeof(*e));
	if (!path || !node || !agent || cJSON_GetArraySize(v) != (int)fleet_ctr_len() ||
	    !(e->v = calloc(fleet_ctr_len(), sizeof(*e->v))))
		return -1;
	snprintf(e->path, sizeof(e->path), "%s", path);
	snprintf(e->node, sizeof(e->node), "%s", node);
	snprintf(e->agent, sizeof(e->agent), "%s", agent);
	cJSON_ArrayForEach(x, v)
		if (xp_json_get_u64(x, &e->v[k++]))
			return -1;
	return 0;
}

static int list_read(const cJSON *arr, struct fleet_sess_ctr **out, size_t *n)
{
	const cJSON *j;

	*n = 0;
	if (!cJSON_IsArray(arr) || !(*out = calloc((size_t)cJSON_GetArraySize(arr) + 1,
						     sizeof(**out))))
		return -1;
	cJSON_ArrayForEach(j, arr) {
		int rc = entry_read(j, &(*out)[*n]);

		(*n)++; /* freed by fleet_ledger_free even when half read */
		if (rc)
			return -1;
	}
	return 0;
}

int fleet_ledger_load(struct fleet_ledger *l, const char *path, char *why, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	cJSON *doc = NULL;
	int rc = xp_in_read(path, LEDGER_MAX, &buf, &n);

	memset(l, 0, sizeof(*l));
	if (rc) {
		snprintf(why, len, "%s", xp_in_strerror(rc));
		return rc == -ENOENT ? 1 : -1;
	}
	rc = -1;
	if (n > 0)
		doc = xp_json_parse(buf, n);
	free(buf);
	if (!doc)
		snprintf(why, len, "not JSON");
	else if (cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(doc, "length")) !=
		 (double)fleet_ctr_len())
		snprintf(why, len, "written for another set of metrics (theory changed)");
	else if (list_read(cJSON_GetObjectItemCaseSensitive(doc, "sessions"), &l->sessions,
			   &l->nsessions) ||
		 list_read(cJSON_GetObjectItemCaseSensitive(doc, "retired"), &l->retired,
			   &l->nretired))
		snprintf(why, len, "malformed entries");
	else
		rc = 0;
	cJSON_Delete(doc);
	if (rc)
		fleet_ledger_free(l);
	else
		qsort(l->sessions, l->nsessions, sizeof(*l->sessions), by_path);
	return rc;
}
