// SPDX-License-Identifier: MIT
/*
 * exact_ns_test.c - nanosecond stamps past 1e15 (11.6 days of uptime) and
 * past 2^53 (104 days) go through the turn assembler -> turn file -> `xperf
 * gpu merge` -> validator -> analyzer and `xperf export` without losing a
 * nanosecond.
 *
 * The demo scenario (assemble/testdata/demo_plain.jsonl, starting at 5 s) is
 * replayed as recorded and again shifted so that it starts at each stamp of
 * `starts`: every time in every turn file must be the recorded one plus the
 * shift, exactly, and every other number unchanged. cJSON alone would write
 * 1.2e+15 or round 9007199254740993 to an even number.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "assemble/fixture.h"
#include "assemble/session.h"
#include "export/export.h"
#include "gpu/gpu_records.h"
#include "gpu/turn_gpu.h"
#include "lib/json_int.h"
#include "lib/test_check.h"
#include "schema/validate.h"

#define EVENTS "assemble/testdata/demo_plain.jsonl"
#define FIRST_TS 5000000000ull /* the first event of EVENTS */
#define END_TS 99999999999ull

static const uint64_t starts[] = { 1200000000000000ull, 9007199254740993ull };

/* Keys whose values are CLOCK_MONOTONIC stamps (the rest are durations, ids, counts). */
static const char *const stamp_keys[] = {
	"start_ns", "end_ns", "t_ns", "start_time_ns", "xperf.ciphertext.start_ns",
	"xperf.ciphertext.end_ns", "xperf.token_times_ns",
};

struct shifted {
	struct xt_session *s;
	uint64_t by;
};

static int feed(void *ctx, const struct xt_event *ev)
{
	struct shifted *sh = ctx;
	struct xt_event e = *ev;

	e.ts_ns += sh->by;
	if (e.call_ns)
		e.call_ns += sh->by;
	return xt_session_event(sh->s, &e);
}

static char *replay(const char *tmp, const char *name, uint64_t by)
{
	char dir[512];
	/* shifted stamps are no instant of this machine's clock: no anchor */
	struct xt_config cfg = { .out_dir = dir, .session_id = "demo", .no_clock_anchor = 1 };
	struct shifted sh = { NULL, by };
	char *out = NULL;

	snprintf(dir, sizeof(dir), "%s/%s", tmp, name);
	sh.s = xt_session_new(&cfg);
	CHECK(sh.s && !xt_fixture_read(EVENTS, feed, &sh), "replay %s", name);
	CHECK(sh.s && !xt_session_finish(sh.s, END_TS + by, 1), "finish %s", name);
	if (sh.s && asprintf(&out, "%s", xt_session_stats(sh.s).dir) < 0)
		out = NULL;
	xt_session_free(sh.s);
	return out;
}

static int is_stamp(const char *key)
{
	for (size_t i = 0; key && i < sizeof(stamp_keys) / sizeof(stamp_keys[0]); i++)
		if (!strcmp(key, stamp_keys[i]))
			return 1;
	return 0;
}

/* Walk both trees together: stamps differ by exactly `by`, other numbers not at all. */
static void compare(const cJSON *a, const cJSON *b, uint64_t by, int stamp, int *nstamps)
{
	for (; a && b; a = a->next, b = b->next) {
		int here = stamp || is_stamp(a->string);
		uint64_t x, y;

		if (cJSON_IsNumber(a) && !xp_json_get_u64(a, &x)) {
			CHECK(!xp_json_get_u64(b, &y) && y == x + (here ? by : 0),
			      "%s: %llu, expected %llu", a->string ? a->string : "[]",
			      (unsigned long long)y, (unsigned long long)(x + (here ? by : 0)));
			*nstamps += here;
		}
		/* array elements have no key: they inherit their array's */
		compare(a->child, b->child, by, here && cJSON_IsArray(a), nstamps);
	}
	CHECK(!a && !b, "the shifted turn has another shape");
}

static cJSON *load(const char *path, char **text)
{
	size_t len;

	*text = test_slurp(path, &len);
	return *text ? xp_json_parse(*text, len) : NULL;
}

static void check_turns(const char *base, const char *dir, uint64_t by)
{
	char pa[768], pb[768];
	int turns = 0, nstamps = 0;

	for (int i = 1;; i++, turns++) {
		char *ta, *tb;
		cJSON *a, *b;

		snprintf(pa, sizeof(pa), "%s/turn_%03d.json", base, i);
		snprintf(pb, sizeof(pb), "%s/turn_%03d.json", dir, i);
		a = load(pa, &ta);
		if (!a) {
			free(ta);
			break;
		}
		b = load(pb, &tb);
		CHECK(b && sc_validate_file(pb, NULL, NULL) == 0, "%s is valid", pb);
		CHECK(tb && !strstr(tb, "e+"), "%s has no exponent", pb);
		compare(a, b, by, 0, &nstamps);
		cJSON_Delete(a);
		cJSON_Delete(b);
		free(ta);
		free(tb);
	}
	CHECK(turns == 6 && nstamps > 100, "%d turns, %d stamps compared", turns, nstamps);
}

/* The first intelligent span of a turn file: [*s, *e]. */
static int first_model_span(const char *path, uint64_t *s, uint64_t *e)
{
	char *text;
	cJSON *doc = load(path, &text), *sp;
	int rc = -1;

	cJSON_ArrayForEach(sp, cJSON_GetObjectItem(doc, "spans")) {
		const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(sp, "domain"));

		if (rc && d && !strcmp(d, "intelligent") &&
		    !xp_json_get_u64(cJSON_GetObjectItem(sp, "start_ns"), s) &&
		    !xp_json_get_u64(cJSON_GetObjectItem(sp, "end_ns"), e))
			rc = 0;
	}
	cJSON_Delete(doc);
	free(text);
	return rc;
}

/* A kernel inside the model's span, merged into the turn; it must read back exactly. */
static void check_merge(const char *tmp, const char *dir, uint64_t by)
{
	char turn[768], gdir[512], err[256], lit[32];
	struct gp_gpu_rec rec = { .kind = XP_GPU_KERNEL, .correlation_id = 7 };
	struct gp_gpu_writer w;
	struct gp_gpu_set set = { 0 };
	uint64_t s = 0, e = 0;
	size_t len;
	char *text;

	snprintf(turn, sizeof(turn), "%s/turn_001.json", dir);
	snprintf(gdir, sizeof(gdir), "%s/gpu-%llu", tmp, (unsigned long long)by);
	CHECK(!first_model_span(turn, &s, &e) && e - s > 2000, "turn 1 has a model span");
	rec.start_ns = s + 1001; /* odd: a double would round it */
	rec.end_ns = s + 2001;
	snprintf(rec.name, sizeof(rec.name), "gemm");
	CHECK(!gp_gpu_writer_open(&w, gdir, 4242, XP_GPU_SRC_CUPTI) &&
		      !gp_gpu_writer_add(&w, &rec) && !gp_gpu_writer_close(&w),
	      "write %s", gdir);
	CHECK(!gp_gpu_load_dir(gdir, &set, err, sizeof(err)) && set.n == 1, "load: %s", err);
	CHECK(gp_gpu_merge_file(turn, &set, NULL, NULL, err, sizeof(err)) == 1, "merge: %s", err);
	gp_gpu_set_free(&set);
	CHECK(sc_validate_file(turn, NULL, NULL) == 0, "merged turn is valid");
	text = test_slurp(turn, &len);
	snprintf(lit, sizeof(lit), "%llu", (unsigned long long)rec.start_ns);
	CHECK(text && strstr(text, lit) && !strstr(text, "e+"), "merged file holds %s", lit);
	free(text);
}

/* OTLP spans carry the turn's start as a decimal string: exact, with a zero clock offset. */
static void check_export(char *turn, uint64_t start)
{
	struct xe_options o = { .format = XE_OTLP };
	char *buf = NULL, lit[32];
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	CHECK(mem && xe_export(&turn, 1, &o, mem, stderr) == XE_OK, "export %s", turn);
	if (mem)
		fclose(mem);
	snprintf(lit, sizeof(lit), "\"%llu\"", (unsigned long long)start);
	CHECK(buf && strstr(buf, lit), "OTLP output holds %s", lit);
	free(buf);
}

/* The analyzer's JSON report of the merged turn names its start exactly. */
static void check_analyzer(const char *dir)
{
	char turn[768], *buf = NULL, *text;
	size_t len = 0;
	struct xa_options o;
	struct xa_turn *t = NULL;
	FILE *mem = open_memstream(&buf, &len);
	cJSON *doc;
	uint64_t start = 0, got = 0, seg = 0;

	snprintf(turn, sizeof(turn), "%s/turn_001.json", dir);
	doc = load(turn, &text);
	CHECK(!xp_json_get_u64(cJSON_GetObjectItem(doc, "start_ns"), &start), "start_ns");
	cJSON_Delete(doc);
	free(text);
	doc = NULL;
	xa_options_default(&o);
	o.format = XA_FMT_JSON;
	CHECK(xa_analyze_turn_file(turn, &o, &t, stderr) == XA_OK, "analyze %s", turn);
	CHECK(mem && t && !xa_render_turn(t, &o, mem), "render");
	if (mem && !fclose(mem))
		doc = xp_json_parse(buf, len);
	CHECK(!xp_json_get_u64(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "turn"), "start_ns"),
			       &got) && got == start,
	      "report start_ns %llu, turn %llu", (unsigned long long)got,
	      (unsigned long long)start);
	CHECK(!xp_json_get_u64(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc,
			"timeline"), 0), "start_ns"), &seg) && seg == start,
	      "timeline starts at %llu", (unsigned long long)seg);
	cJSON_Delete(doc);
	free(buf);
	xa_turn_free(t);
	check_export(turn, start);
}

int main(void)
{
	const char *tmp = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
	char *base = replay(tmp, "recorded", 0);

	for (size_t i = 0; base && i < sizeof(starts) / sizeof(starts[0]); i++) {
		uint64_t by = starts[i] - FIRST_TS;
		char name[32], *dir;

		snprintf(name, sizeof(name), "shifted-%zu", i);
		dir = replay(tmp, name, by);
		if (!dir)
			continue;
		check_turns(base, dir, by);
		check_merge(tmp, dir, by);
		check_analyzer(dir);
		free(dir);
	}
	free(base);
	return test_failures != 0;
}
