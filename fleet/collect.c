// SPDX-License-Identifier: MIT
/*
 * collect.c - walks a trace tree and feeds each session to the aggregates.
 *
 * A directory holding a turn_*.json file is a session. DIR's children that are
 * sessions belong to the node named after DIR itself; DIR's other children are
 * nodes, whose session children are read (no deeper: the layout is fixed, and a
 * bounded walk cannot loop). Symbolic links and dot-directories are skipped.
 * Nothing is listed in memory: each directory is read as a stream.
 *
 * Each session is analysed by the analyzer library with its default options, so
 * that fleet figures equal the sum of `xperf analyze session` reports. The figures
 * come from the session's JSON report (analyze/report.schema.json), read back with
 * cJSON: the library's public API; invalid files come from its error stream, one
 * "skipped PATH:LINE:COL: ..." line each. The agent's name is read from the
 * session's first valid turn file.
 */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "analyze/analyze.h"
#include "fleet/fleet.h"
#include "lib/json_int.h"
#include "core/read.h"

#define ANALYZE_PREFIX "xperf analyze: "
#define SKIP_PREFIX "xperf analyze: skipped "

static int is_turn_name(const char *n)
{
	size_t len = strlen(n);

	return !strncmp(n, "turn_", 5) && len > 10 && !strcmp(n + len - 5, ".json");
}

/* 1 when `path` is a real directory (not a link) holding a turn_*.json file. */
static int is_session(const char *path)
{
	struct dirent *de;
	DIR *d = opendir(path);
	int found = 0;

	if (!d)
		return 0;
	while (!found && (de = readdir(d)))
		found = is_turn_name(de->d_name);
	closedir(d);
	return found;
}

static void ignore_error(const struct sc_verror *e, void *arg)
{
	(void)e;
	(void)arg;
}

/* The agent name of the session's first valid turn file, "unknown" if none. */
static void agent_name(const char *dir, char *out, size_t len)
{
	char path[FLEET_PATH + 256];
	struct dirent *de;
	DIR *d = opendir(dir);

	snprintf(out, len, "unknown");
	while (d && (de = readdir(d))) {
		struct tt_turn *t;

		if (!is_turn_name(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!(t = tt_turn_load(path, ignore_error, NULL, NULL)))
			continue;
		if (t->agent.name)
			snprintf(out, len, "%s", t->agent.name);
		tt_turn_free(t);
		break;
	}
	if (d)
		closedir(d);
}

static uint64_t num(const cJSON *obj, const char *key)
{
	uint64_t v;

	return xp_json_get_u64(cJSON_GetObjectItemCaseSensitive(obj, key), &v) ? 0 : v;
}

/* A `tokens` object of the analyzer's report (analyze/README.md, "Tokens and cost"). */
static void read_usage(const cJSON *j, struct xa_usage *u)
{
	const cJSON *usd = cJSON_GetObjectItemCaseSensitive(j, "cost_usd");

	for (int k = 0; k < XA_TOK_COUNT; k++)
		u->tok[k] = (double)num(j, xa_tok_names[k]);
	u->usd = cJSON_IsNumber(usd) && usd->valuedouble > 0 ? usd->valuedouble : 0;
	u->calls = (unsigned)num(j, "calls");
	u->unpriced = (unsigned)num(j, "unpriced_calls");
}

/* The histograms of in->ctr from the report's per-turn rows (TTFT, wall time). */
static void histograms(const cJSON *doc, struct fleet_input *in)
{
	uint64_t *v = in->ctr;
	const cJSON *row;

	cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(doc, "turns")) {
		const cJSON *ttft = cJSON_GetObjectItemCaseSensitive(row, "ttft_ms");

		fleet_ctr_observe(v, fleet_ctr_turn(), fleet_turn_buckets, fleet_turn_nbuckets,
				  num(row, "wall_ns"));
		if (cJSON_IsNumber(ttft) && ttft->valuedouble >= 0)
			fleet_ctr_observe(v, fleet_ctr_ttft(), fleet_ttft_buckets,
					  fleet_ttft_nbuckets, (uint64_t)llround(ttft->valuedouble * 1e6));
	}
}

/* Fill in's figures from the session report `doc`; -1 when it lacks them. */
static int read_report(const cJSON *doc, struct fleet_input *in)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(doc, "session"), *n, *top;

	if (!cJSON_IsObject(s))
		return -1;
	in->turns = (unsigned)num(s, "turns");
	in->incomplete = (unsigned)num(s, "incomplete");
	in->wall_ns = num(s, "wall_ns");
	in->dropped_events = num(s, "dropped_events");
	cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(doc, "l2")) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(n, "id");
		const struct th_l2 *l2 = cJSON_IsString(id) ? th_l2_find(id->valuestring) : NULL;

		if (l2)
			in->l2_ns[l2->domain][l2->category] = num(n, "ns");
	}
	cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(doc, "l3")) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(n, "id");
		const struct th_l3 *p = cJSON_IsString(id) ? th_l3_find(id->valuestring) : NULL;

		if (!p)
			continue;
		in->fired[p - th_l3_table] = (unsigned)num(n, "fired_turns");
		in->ns[p - th_l3_table] = num(n, "ns");
	}
	histograms(doc, in);
	read_usage(cJSON_GetObjectItemCaseSensitive(doc, "tokens"), &in->use);
	read_usage(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc,
						    "tokens"), "waste"), &in->waste);
	top = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "bottlenecks"), 0);
	in->top = cJSON_IsString(top) ? th_l3_find(top->valuestring) : NULL;
	return 0;
}

/* Render the session's JSON report into memory and parse it back. */
static cJSON *session_report(const struct xa_session *s, const struct xa_options *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	cJSON *doc = NULL;
	int rc;

	if (!mem)
		return NULL;
	rc = xa_render_session(s, o, mem);
	if (!fclose(mem) && !rc)
		doc = xp_json_parse(buf, len);
	free(buf);
	return doc;
}

static int bad(struct fleet_agg *a, const char *node, const char *msg, int failed, FILE *log)
{
	if (log)
		fprintf(log, "xperf fleet: %s\n", msg);
	return fleet_add_bad(a, node, msg, failed);
}

/* Count the analyzer's "skipped" lines as invalid files, and a failed session once. */
static int note_errors(struct fleet_agg *a, const char *path, const char *node, FILE *err,
		       int failed, FILE *log)
{
	char *line = NULL, msg[FLEET_MSG];
	size_t cap = 0;
	ssize_t n;
	int rc = 0;

	rewind(err);
	while (!rc && (n = getline(&line, &cap, err)) > 0) {
		int skip = !strncmp(line, SKIP_PREFIX, strlen(SKIP_PREFIX));
		const char *msg = line;

		line[n - 1] = line[n - 1] == '\n' ? '\0' : line[n - 1];
		if (skip)
			msg += strlen(SKIP_PREFIX);
		else if (!strncmp(line, ANALYZE_PREFIX, strlen(ANALYZE_PREFIX)))
			msg += strlen(ANALYZE_PREFIX);
		if (skip || failed)
			rc = bad(a, node, msg, !skip, log);
		failed &= skip;
	}
	free(line);
	if (!rc && failed) {
		snprintf(msg, sizeof(msg), "%s: analysis failed (I/O error or out of memory)",
			 path);
		rc = bad(a, node, msg, 1, log);
	}
	return rc;
}

/* Analyse one session directory and fold it in. -1 only when out of memory. */
static int do_session(struct fleet_agg *a, const char *path, const char *node, FILE *log)
{
	unsigned fired[th_l3_count];
	uint64_t ns[th_l3_count], ctr[fleet_ctr_len()];
	char agent[FLEET_NAME];
	struct fleet_input in = { .path = path, .node = node, .agent = agent, .fired = fired,
				  .ns = ns, .ctr = ctr };
	struct xa_session *s = NULL;
	struct xa_options o;
	FILE *err = tmpfile();
	cJSON *doc = NULL;
	int rc;

	if (!err)
		return -1;
	memset(fired, 0, sizeof(fired));
	memset(ns, 0, sizeof(ns));
	memset(ctr, 0, sizeof(ctr));
	xa_options_default(&o);
	o.prices = a->prices;
	rc = xa_analyze_session_dir(path, &o, &s, err);
	if (rc == XA_OK && (!(doc = session_report(s, &o)) || read_report(doc, &in)))
		rc = XA_EFAIL;
	if (note_errors(a, path, node, err, rc != XA_OK, log))
		rc = -1;
	else if (rc == XA_OK) {
		agent_name(path, agent, sizeof(agent));
		rc = fleet_add_session(a, &in);
	} else
		rc = 0;
	cJSON_Delete(doc);
	xa_session_free(s);
	fclose(err);
	return rc;
}

/* Each session child of `dir` (node `node`); with nodes set, the other children are nodes. */
static int walk(struct fleet_agg *a, const char *dir, const char *node, int nodes, FILE *log)
{
	char path[FLEET_PATH];
	struct dirent *de;
	DIR *d = opendir(dir);
	int rc = 0;

	if (!d) {
		char msg[FLEET_MSG];

		snprintf(msg, sizeof(msg), "%s: cannot read the directory: %s", dir,
			 strerror(errno));
		if (nodes) {
			if (log)
				fprintf(log, "xperf fleet: %s\n", msg);
			return -1;
		}
		return bad(a, node, msg, 1, log);
	}
	while (!rc && (de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path) ||
		    lstat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		if (is_session(path))
			rc = do_session(a, path, node, log);
		else if (nodes)
			rc = walk(a, path, de->d_name, 0, log);
	}
	closedir(d);
	return rc;
}

int fleet_collect(const char *dir, struct fleet_agg *a, FILE *log)
{
	char copy[FLEET_PATH], real[PATH_MAX];
	const char *base;

	snprintf(copy, sizeof(copy), "%s", realpath(dir, real) ? real : dir);
	base = basename(copy);
	if (is_session(dir))
		return do_session(a, dir, "local", log);
	return walk(a, dir, base[0] && strcmp(base, "/") ? base : "local", 1, log);
}
