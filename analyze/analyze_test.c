// SPDX-License-Identifier: MIT
/*
 * analyze_test.c - hand-computed turns and sessions through the public API.
 * Each case analyses a fixture from analyze/testdata (written by
 * make_fixtures.py), renders JSON, text and HTML into OUTDIR (argv[1]; the
 * sh_test wrapper then checks every one of them with check_reports.py), and
 * asserts the numbers read back from the JSON report. Times are exact
 * integer ns; the arithmetic is in the comment of each case.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "analyze/analyze.h"
#include "lib/test_check.h"

#define MS 1000000.0
#define TD "analyze/testdata/"

static const char *outdir;

#define NEAR(a, b) (fabs((a) - (double)(b)) <= 1e-9 * (fabs((double)(b)) + 1))

static struct xa_options opts(int depth, double thr, unsigned grades)
{
	struct xa_options o;

	xa_options_default(&o);
	o.depth = depth;
	o.threshold = thr;
	o.grades = grades ? grades : o.grades;
	return o;
}

/* Render the three formats of t or s into OUTDIR/<tag>.*; return the parsed JSON. */
static cJSON *render_all(const char *tag, const struct xa_turn *t, const struct xa_session *s,
			 struct xa_options o)
{
	static const char *const ext[] = { "json", "txt", "html" };
	char path[512];
	cJSON *doc = NULL;

	for (int f = 0; f < 3; f++) {
		o.format = (enum xa_format)f;
		snprintf(path, sizeof(path), "%s/%s.%s", outdir, tag, ext[f]);
		CHECK(!xa_render_to_path(t, s, &o, path), "%s: cannot render", path);
	}
	snprintf(path, sizeof(path), "%s/%s.json", outdir, tag);
	FILE *in = fopen(path, "r");
	static char buf[1 << 20];
	size_t n = in ? fread(buf, 1, sizeof(buf) - 1, in) : 0;

	if (in)
		fclose(in);
	buf[n] = '\0';
	doc = cJSON_Parse(buf);
	CHECK(doc != NULL, "%s: JSON does not parse", path);
	return doc;
}

static cJSON *turn_report(const char *fixture, const char *tag, struct xa_options o)
{
	struct xa_turn *t = NULL;
	char path[256];
	cJSON *doc;

	snprintf(path, sizeof(path), TD "%s.json", fixture);
	if (xa_analyze_turn_file(path, &o, &t, stderr) != 0) {
		CHECK(0, "%s: analysis failed", path);
		return cJSON_CreateObject();
	}
	doc = render_all(tag, t, NULL, o);
	xa_turn_free(t);
	return doc ? doc : cJSON_CreateObject();
}

static const cJSON *find(const cJSON *doc, const char *arr, const char *id)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, arr)) {
		const cJSON *i = cJSON_GetObjectItem(it, "id");

		if (cJSON_IsString(i) && !strcmp(i->valuestring, id))
			return it;
	}
	return NULL;
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *n = cJSON_GetObjectItem(o, key);

	return cJSON_IsNumber(n) ? n->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *n = cJSON_GetObjectItem(o, key);

	return cJSON_IsString(n) ? n->valuestring : "";
}

static void expect_l1(const cJSON *d, double s, double p, double w, double e)
{
	const double want[4] = { s, p, w, e };
	const char *ids[4] = { "supply", "processing", "waste", "effective" };

	for (int i = 0; i < 4; i++)
		CHECK(num(find(d, "l1", ids[i]), "ns") == want[i], "L1 %s: %.0f ns, want %.0f",
		      ids[i], num(find(d, "l1", ids[i]), "ns"), want[i]);
}

static void expect_l3(const cJSON *d, const char *id, double ns, const char *state, double value)
{
	const cJSON *p = find(d, "l3", id);

	CHECK(p != NULL, "%s: missing", id);
	if (!p)
		return;
	if (!isnan(ns))
		CHECK(num(p, "ns") == ns, "%s: ns %.0f, want %.0f", id, num(p, "ns"), ns);
	CHECK(!strcmp(str(p, "state"), state), "%s: state %s, want %s", id, str(p, "state"), state);
	if (!isnan(value))
		CHECK(NEAR(num(p, "value"), value), "%s: value %.9g, want %.9g", id,
		      num(p, "value"), value);
}

/* What fixing fired point id saves, from its `savings` object. */
static void expect_saved(const cJSON *d, const char *id, double ns)
{
	const cJSON *sv = cJSON_GetObjectItem(find(d, "l3", id), "savings");

	CHECK(num(sv, "ns") == ns, "%s: saves %.0f ns, want %.0f", id, num(sv, "ns"), ns);
}

static const cJSON *l4(const cJSON *d, const char *l3, const char *id)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, cJSON_GetObjectItem(find(d, "l3", l3), "l4"))
		if (!strcmp(str(it, "id"), id))
			return it;
	return NULL;
}

/* prompt_assembly [0,600] all on-CPU; tool_call [400,900] on 100 runq 100 blocked 300.
 * Overlap [400,600]: same depth, the tool is shorter -> tool. PA excl 400, effective
 * (1e6 tokens x 1 us > 400 ms). Tool: on/dur 0.2 < 0.3 -> all 500 supply, runq share
 * 500 x 100/400 = 125, blocked 375. [900,1000] uncovered -> orchestration 100. */
static void test_overlap(void)
{
	cJSON *d = turn_report("overlap", "overlap", opts(3, 0.2, 0));

	expect_l1(d, 500 * MS, 100 * MS, 0, 400 * MS);
	expect_l3(d, "compute.supply.tool_io_blocked", 375 * MS, "fired", 0.375);
	expect_l3(d, "compute.supply.runqueue_delay", 125 * MS, "below", 100.0 / 1100);
	expect_l3(d, "compute.effective.prompt_assembly", 400 * MS, "below", 1.0);
	expect_l3(d, "compute.effective.tool_execution", 0, "fired", 0.0);
	expect_l3(d, "compute.processing.orchestration", 100 * MS, "not_drilled", 0.1);
	/* Savings: blocked 375 ms at 0.375 of the turn, to the 0.15 threshold: 150 ms stay,
	 * 225 saved; effective work saves nothing, so it has no row in the ranking. */
	expect_saved(d, "compute.supply.tool_io_blocked", 225 * MS);
	expect_saved(d, "compute.effective.tool_execution", 0);
	const cJSON *ranked = cJSON_GetObjectItem(d, "savings");

	CHECK(cJSON_GetArraySize(ranked) == 1 &&
	      !strcmp(str(cJSON_GetArrayItem(ranked, 0), "id"), "compute.supply.tool_io_blocked"),
	      "savings: want only the blocked time ranked, got %d rows", cJSON_GetArraySize(ranked));
	const cJSON *note = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "notes"), 0);

	CHECK(cJSON_IsString(note) && !strcmp(note->valuestring, "100.000 ms covered by no span, "
				      "charged to orchestration"), "uncovered time not noted");
	cJSON_Delete(d);
}

/* Same turn, other thresholds: at 0.45 Effective (40%) is not drilled; at 0.05 Processing
 * (10%) is, and orchestration's 0.1 share does not exceed its 0.10 threshold. */
static void test_threshold(void)
{
	cJSON *d = turn_report("overlap", "overlap_t45", opts(3, 0.45, 0));

	expect_l3(d, "compute.supply.tool_io_blocked", 375 * MS, "fired", 0.375);
	expect_l3(d, "compute.effective.tool_execution", 0, "not_drilled", 0.0);
	CHECK(!cJSON_IsTrue(cJSON_GetObjectItem(find(d, "l1", "effective"), "drilled")),
	      "effective drilled at 0.45");
	cJSON_Delete(d);
	d = turn_report("overlap", "overlap_t05", opts(3, 0.05, 0));
	expect_l3(d, "compute.processing.orchestration", 100 * MS, "below", 0.1);
	cJSON_Delete(d);
}

/* llm_inference [0,1000], ttft 600 ms, 40 output tokens; a failed attempt [0,300] inside it
 * (HTTP 500, llm_error mark). Waste wins [0,300]; the carved ttft child gets [300,600];
 * the call keeps [600,1000] = 400, effective (40 x 20 ms = 800 >= 400). */
static void test_waste_in_llm(void)
{
	cJSON *d = turn_report("waste_in_llm", "waste_in_llm", opts(3, 0.2, 0));

	expect_l1(d, 300 * MS, 0, 300 * MS, 400 * MS);
	expect_l3(d, "intelligent.waste.llm_error", 300 * MS, "fired", 1);
	expect_saved(d, "intelligent.waste.llm_error", 300 * MS); /* waste: all of it */
	expect_l3(d, "fused.supply.ttft", 300 * MS, "below", 600);
	expect_l3(d, "intelligent.effective.decode", 400 * MS, "below", 1.0);
	cJSON_Delete(d);
}

/* tool_call [0,1000] exit 1 (not successful): on 900 -> supply 100, processing 900.
 * L4: hardware counters unavailable -> not measured with the reason; context switches
 * 5000 / 0.9 s = 5555.6 > 2000 fires; page faults 100 / 900 ms = 0.111 < 10. */
static void test_missing_counters(void)
{
	cJSON *d = turn_report("missing_counters", "missing_counters", opts(4, 0.2, 0));
	const char *id = "compute.processing.tool_cpu";

	expect_l1(d, 100 * MS, 900 * MS, 0, 0);
	expect_l3(d, id, 900 * MS, "fired", 0.9);
	CHECK(!strcmp(str(l4(d, id, "ipc_low"), "state"), "not_measured"), "ipc_low measured");
	CHECK(strstr(str(l4(d, id, "ipc_low"), "note"),
		     "instructions unavailable: no hardware PMU") != NULL, "ipc_low reason: %s",
	      str(l4(d, id, "ipc_low"), "note"));
	CHECK(cJSON_GetObjectItem(l4(d, id, "llc_mpki"), "value") == NULL, "invented llc value");
	CHECK(!strcmp(str(l4(d, id, "ctx_switch_rate"), "state"), "fired"), "ctx rate not fired");
	CHECK(NEAR(num(l4(d, id, "ctx_switch_rate"), "value"), 5000 / 0.9), "ctx rate value");
	CHECK(NEAR(num(l4(d, id, "page_fault_rate"), "value"), 100 / 900.0), "page fault rate");
	CHECK(!strcmp(str(l4(d, id, "page_fault_rate"), "state"), "below"), "page faults fired");
	cJSON_Delete(d);
}

/* Counters recorded on a machine with a PMU (tool exit 3: all 1000 ms processing).
 * IPC 2e9/4e9 = 0.5 < 1 fires; L1D 1000 x 5e7/2e9 = 25 MPKI > 20 fires; LLC 0.5 MPKI;
 * branches 10 MPKI > 5 fires, miss rate 2e7/4e8 = 0.05 (not > 0.05); L1D miss rate
 * 5e7/6e8; LLC miss rate 0.1; 2 major faults > 0 fires; 10 switches/s; runq 0. */
static void test_hw_counters(void)
{
	cJSON *d = turn_report("hw_counters", "hw_counters", opts(4, 0.2, 0));
	const char *id = "compute.processing.tool_cpu";
	static const struct {
		const char *l4, *state;
		double value;
	} want[] = {
		{ "ipc_low", "fired", 0.5 },        { "l1d_mpki", "fired", 25 },
		{ "llc_mpki", "below", 0.5 },       { "branch_mpki", "fired", 10 },
		{ "branch_miss_rate", "below", 0.05 }, { "l1d_miss_rate", "below", 5e7 / 6e8 },
		{ "llc_miss_rate", "below", 0.1 },  { "major_faults", "fired", 2 },
		{ "ctx_switch_rate", "below", 10 }, { "runq_latency", "below", 0 },
	};

	expect_l3(d, id, 1000 * MS, "fired", 1.0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const cJSON *c = l4(d, id, want[i].l4);

		CHECK(c && !strcmp(str(c, "state"), want[i].state) &&
		      NEAR(num(c, "value"), want[i].value), "L4 %s: %s %g", want[i].l4,
		      str(c, "state"), num(c, "value"));
	}
	CHECK(str(l4(d, id, "ipc_low"), "suggestion")[0] != '\0', "fired L4 without suggestion");
	cJSON_Delete(d);
}

/* No spans: all 500 ms uncovered -> orchestration processing; L4 has no counters. */
static void test_no_spans(void)
{
	cJSON *d = turn_report("no_spans", "no_spans", opts(4, 0.2, 0));
	const char *id = "compute.processing.orchestration";

	expect_l1(d, 0, 500 * MS, 0, 0);
	expect_l3(d, id, 500 * MS, "fired", 1.0);
	CHECK(strstr(str(l4(d, id, "ipc_low"), "note"), "covered by no span") != NULL,
	      "L4 reason: %s", str(l4(d, id, "ipc_low"), "note"));
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(d, "timeline")) == 1, "one segment");
	cJSON_Delete(d);
}

/* One `waiting` span, never on CPU: 100% compute supply, blocked_wait fires at 1.0. */
static void test_all_idle(void)
{
	cJSON *d = turn_report("all_idle", "all_idle", opts(3, 0.2, 0));

	expect_l1(d, 1000 * MS, 0, 0, 0);
	expect_l3(d, "compute.supply.blocked_wait", 1000 * MS, "fired", 1.0);
	cJSON_Delete(d);
}

/* orchestration [0,1000] > tool [100,700] (on 300 of 600) > failed tool [200,400].
 * Inner: waste 200. Outer: excl 400, supply 400 x 300/600 = 200, effective 200.
 * Orchestration: excl 400, processing. Waste is 20%: drilled only below 0.2. */
static void test_nested_tools(void)
{
	cJSON *d = turn_report("nested_tools", "nested_tools", opts(3, 0.2, 0));

	expect_l1(d, 200 * MS, 400 * MS, 200 * MS, 200 * MS);
	expect_l3(d, "compute.waste.failed_tool_call", 200 * MS, "not_drilled", 1);
	expect_l3(d, "compute.effective.tool_execution", 200 * MS, "not_drilled", 0.5);
	cJSON_Delete(d);
	d = turn_report("nested_tools", "nested_tools_t10", opts(3, 0.1, 0));
	expect_l3(d, "compute.waste.failed_tool_call", 200 * MS, "fired", 1);
	cJSON_Delete(d);
}

/* Kernel-assembled turn, flat stages with sched. Supply: transfer 50 + ttft 500 + gap 200
 * (beats the longer decode) + tool 300 (on 60/300 < 0.3; runq 300 x 40/240 = 50) +
 * waiting 100 = 1150. Decode excl 600, effective 20 tok x 20 ms = 400, processing 200.
 * response_parse (declared intelligent: corrected) 50 on CPU, effective 20 tok x 2 us =
 * 0.04 ms. Processing: 100 + 200 + 49.96 + 100 = 449.96 ms. */
static void test_ebpf(void)
{
	cJSON *d = turn_report("ebpf", "ebpf", opts(3, 0.2, 0));
	const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "corrections"), 0);

	expect_l1(d, 1150 * MS, 449960000, 0, 400040000);
	expect_l3(d, "fused.supply.streaming_gap", 200 * MS, "fired", 0.25);
	expect_l3(d, "fused.supply.ttft", 500 * MS, "below", 500);
	expect_l3(d, "compute.supply.runqueue_delay", 50 * MS, "not_drilled", NAN);
	CHECK(c && num(c, "span") == 6 && !strcmp(str(c, "declared"), "intelligent") &&
	      !strcmp(str(c, "corrected"), "compute"), "correction not recorded");
	cJSON_Delete(d);
}

/* waiting 400 (blocked_wait, grade B) + tool 600 effective. With grades A only, the
 * B point is dropped and its 400 ms fold into compute processing. */
static void test_measurability(void)
{
	cJSON *d = turn_report("measurability", "measurability", opts(3, 0.2, 0));

	expect_l1(d, 400 * MS, 0, 0, 600 * MS);
	expect_l3(d, "compute.supply.blocked_wait", 400 * MS, "fired", 0.4);
	cJSON_Delete(d);
	d = turn_report("measurability", "measurability_a", opts(3, 0.2, 1u << XP_GRADE_A));
	expect_l1(d, 0, 400 * MS, 0, 600 * MS);
	CHECK(num(find(d, "l2", "compute.processing"), "ns") == 400 * MS, "fold into processing");
	CHECK(find(d, "l3", "compute.supply.blocked_wait") == NULL, "B point kept");
	cJSON_Delete(d);
	d = turn_report("measurability", "measurability_l1", opts(1, 0.2, 0));
	CHECK(!cJSON_GetObjectItem(d, "l2") && !cJSON_GetObjectItem(d, "l3"), "depth L1 drills");
	cJSON_Delete(d);
}

/*
 * The ciphertext tier: no token counts, status codes or tool identity. The
 * points built on them say why they are not measured (never a value from
 * zeros, never fired); what the tier does time (TTFT) is measured.
 */
static void test_ciphertext(void)
{
	static const char *const unread[] = {
		"intelligent.processing.slow_decode", "intelligent.processing.long_prefill",
		"compute.waste.failed_tool_call", "compute.waste.repeated_tool_call",
		"compute.processing.tool_cpu", "intelligent.waste.llm_error",
		"intelligent.waste.truncated_output", "compute.processing.response_parse",
	};
	cJSON *d = turn_report("ciphertext", "ciphertext", opts(3, 0.2, 0));

	for (size_t i = 0; i < sizeof(unread) / sizeof(unread[0]); i++) {
		const cJSON *p = find(d, "l3", unread[i]);

		CHECK(p && !strcmp(str(p, "state"), "not_measured") &&
		      strstr(str(p, "note"), "ciphertext") && !cJSON_GetObjectItem(p, "value"),
		      "%s: %s (%s)", unread[i], p ? str(p, "state") : "missing",
		      p ? str(p, "note") : "");
	}
	expect_l3(d, "fused.supply.ttft", NAN, "below", 500);
	cJSON_Delete(d);
}

/* decode [0,1000], 20 tokens: effective 400, processing 600 (20 tok/s < 30 fires).
 * GPU: phase [90,800] = 710; busy = kernels [100,500] + memcpy [600,700] = 500;
 * copies 100/500 = 0.2 > 0.1; sync 100/710; idle 210/710 under a 0% L2: not drilled. */
static void test_gpu(void)
{
	cJSON *d = turn_report("gpu", "gpu", opts(3, 0.2, 0));

	expect_l1(d, 0, 600 * MS, 0, 400 * MS);
	expect_l3(d, "intelligent.processing.slow_decode", 600 * MS, "fired", 20);
	expect_l3(d, "intelligent.processing.gpu_memcpy", 0, "fired", 0.2);
	expect_l3(d, "intelligent.processing.gpu_sync", 0, "fired", 100.0 / 710);
	expect_l3(d, "intelligent.processing.gpu_kernel", 0, "below", 400.0 / 710);
	expect_l3(d, "intelligent.supply.gpu_host_wait", 0, "not_drilled", 210.0 / 710);
	expect_l3(d, "intelligent.effective.decode", 400 * MS, "fired", 0.4);
	cJSON_Delete(d);
}

/* A custom stage declared intelligent: corrected to compute, grade C point; filtered
 * with A,B (already processing, so the time stays there). */
static void test_custom_stage(void)
{
	cJSON *d = turn_report("custom_stage", "custom_stage", opts(3, 0.2, 0));

	expect_l1(d, 0, 1000 * MS, 0, 0);
	expect_l3(d, "compute.processing.custom_stage", 1000 * MS, "fired", 1.0);
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(d, "corrections")) == 1, "no correction");
	cJSON_Delete(d);
	d = turn_report("custom_stage", "custom_stage_ab",
			opts(3, 0.2, (1u << XP_GRADE_A) | (1u << XP_GRADE_B)));
	expect_l1(d, 0, 1000 * MS, 0, 0);
	CHECK(find(d, "l3", "compute.processing.custom_stage") == NULL, "C point kept");
	cJSON_Delete(d);
}

/* The schema's full example (merged source, nested, GPU, marks): computed in README. */
static const cJSON *usage_obj(const cJSON *d)
{
	return cJSON_GetObjectItem(d, "tokens");
}

static double usage(const cJSON *d, const char *obj, const char *key)
{
	const cJSON *o = cJSON_GetObjectItem(d, "tokens");

	return num(obj ? cJSON_GetObjectItem(o, obj) : o, key);
}

/* Tokens and cost of full.json: call 4 (claude-sonnet-4-6-20260101) has 18250 input tokens,
 * 17000 of them cache reads, and 160 output; decode 8 has 110 output and no model
 * (unpriced). With prices_test.tsv (2 / 10 / 0.5 / 4 / 20 USD per M): 1250 x 2 + 160 x 10
 * + 17000 x 0.5 = 12600 uUSD. With the shipped table (claude-sonnet-4*: 3 / 15 / 0.30):
 * 1250 x 3 + 160 x 15 + 17000 x 0.3 = 11250 uUSD. Tool 6 failed: the answer that asked for
 * it (call 4, ended 1 ms before) spent its 160 output tokens on Waste: 1600 / 2400 uUSD. */
static void test_cost(void)
{
	struct xa_prices *p = NULL;
	struct xa_options o = opts(3, 0.2, 0);
	cJSON *d;

	CHECK(!xa_prices_load(TD "prices_test.tsv", &p, stderr), "prices_test.tsv refused");
	o.prices = p;
	d = turn_report("full", "full_cost", o);
	CHECK(usage(d, NULL, "input") == 18250 && usage(d, NULL, "output") == 270 &&
	      usage(d, NULL, "cache_read") == 17000 && usage(d, NULL, "reasoning") == 0,
	      "token categories");
	CHECK(usage(d, NULL, "calls") == 2 && usage(d, NULL, "unpriced_calls") == 1, "calls");
	CHECK(NEAR(usage(d, NULL, "cost_usd"), 0.0126), "cost %.9g", usage(d, NULL, "cost_usd"));
	CHECK(usage(d, "waste", "output") == 160 && usage(d, "waste", "input") == 0 &&
	      NEAR(usage(d, "waste", "cost_usd"), 0.0016), "waste tokens");
	CHECK(!strcmp(str(cJSON_GetObjectItem(usage_obj(d), "prices"), "date"), "2026-01-15"),
	      "price date");
	CHECK(!strcmp(str(cJSON_GetArrayItem(cJSON_GetObjectItem(d, "llm_calls"), 0), "waste_l3"),
		      "compute.waste.failed_tool_call"), "the asking call is marked");
	cJSON_Delete(d);
	xa_prices_free(p);
	d = turn_report("full", "full_cost_default", opts(3, 0.2, 0));
	CHECK(NEAR(usage(d, NULL, "cost_usd"), 0.01125), "default cost %.9g",
	      usage(d, NULL, "cost_usd"));
	CHECK(NEAR(usage(d, "waste", "cost_usd"), 0.0024), "default waste cost");
	cJSON_Delete(d);
}

static void test_full(void)
{
	cJSON *d = turn_report("full", "full", opts(4, 0.2, 0));

	expect_l1(d, 3679050000, 759630000, 500 * MS, 3561320000);
	expect_l3(d, "fused.supply.streaming_gap", 2500 * MS, "fired", 2500.0 / 6400);
	expect_l3(d, "fused.supply.ttft", 850 * MS, "below", 850);
	cJSON_Delete(d);
}

static cJSON *session_report(const char *dir, const char *tag, struct xa_session **out)
{
	struct xa_options o = opts(4, 0.2, 0);
	int rc = xa_analyze_session_dir(dir, &o, out, stderr);
	char path[512];
	FILE *f;

	CHECK(rc == 0, "%s: rc %d", dir, rc);
	if (rc)
		return cJSON_CreateObject();
	snprintf(path, sizeof(path), "%s/%s_summary.txt", outdir, tag);
	f = fopen(path, "w");
	CHECK(f && !xa_print_summary(*out, f), "summary");
	if (f)
		fclose(f);
	return render_all(tag, NULL, *out, o);
}

static const cJSON *row(const cJSON *d, int i)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(d, "turns"), i);
}

/* Three turns, walls 1000/3000/2000, TTFT 100/200/300 ms, input tokens 1000/1500/3000,
 * 10 output tokens each. Decode runs 3.6-11 tok/s in every turn (fires 3x); context grows
 * by 0.5 and 1.0 (> 0.25: fires in turns 2 and 3). TTFT slope 100 ms/turn, token slope
 * 1000/turn. Effective 3 x 200, supply 600, processing 700 + 2600 + 1500. */
static void test_session_growth(void)
{
	struct xa_session *s = NULL;
	cJSON *d = session_report(TD "session_growth", "session_growth", &s);
	const cJSON *tr = cJSON_GetObjectItem(d, "trends"), *sl = cJSON_GetObjectItem(d, "slowest");
	struct xa_summary sum;

	expect_l1(d, 600 * MS, 4800 * MS, 0, 600 * MS);
	CHECK(num(find(d, "l3", "intelligent.processing.slow_decode"), "fired_turns") == 3,
	      "slow_decode frequency");
	CHECK(num(find(d, "l3", "intelligent.processing.context_growth"), "fired_turns") == 2,
	      "context_growth frequency");
	CHECK(NEAR(num(find(d, "l3", "intelligent.processing.context_growth"), "value"), 1.0),
	      "worst growth");
	CHECK(NEAR(num(tr, "ttft_slope_ms_per_turn"), 100), "ttft slope %g",
	      num(tr, "ttft_slope_ms_per_turn"));
	CHECK(NEAR(num(tr, "input_tokens_slope_per_turn"), 1000), "token slope");
	CHECK(num(tr, "input_tokens_first") == 1000 && num(tr, "input_tokens_last") == 3000,
	      "token ends");
	CHECK(NEAR(num(tr, "context_growth_max"), 1.0), "growth max");
	CHECK(num(cJSON_GetArrayItem(sl, 0), "turn_index") == 2 &&
	      num(cJSON_GetArrayItem(sl, 1), "turn_index") == 3 &&
	      num(cJSON_GetArrayItem(sl, 2), "turn_index") == 1, "slowest order");
	CHECK(num(row(d, 1), "wall_ns") == 3000 * MS, "row 2 wall");
	CHECK(num(cJSON_GetObjectItem(row(d, 1), "ns"), "processing") == 2600 * MS, "row 2 proc");
	xa_session_summary(s, &sum);
	CHECK(sum.turns == 3 && sum.top[0].l3 &&
	      !strcmp(sum.top[0].l3->id, "intelligent.processing.slow_decode") &&
	      sum.top[0].turns_fired == 3 && sum.top[1].l3 &&
	      !strcmp(sum.top[1].l3->id, "intelligent.processing.context_growth"),
	      "summary top points");
	CHECK(NEAR(sum.l1_share[XP_CAT_PROCESSING], 0.8), "summary shares");
	xa_session_free(s);
	cJSON_Delete(d);
}

/* turn_002.json is cut JSON: skipped with its path and position, the others analysed. */
static void test_session_skip(void)
{
	struct xa_session *s = NULL;
	cJSON *d = session_report(TD "session_skip", "session_skip", &s);
	const cJSON *ses = cJSON_GetObjectItem(d, "session");
	const char *msg = cJSON_GetArrayItem(cJSON_GetObjectItem(ses, "skipped_files"), 0)
				  ? cJSON_GetArrayItem(cJSON_GetObjectItem(ses, "skipped_files"), 0)
					    ->valuestring : "";

	CHECK(num(ses, "turns") == 2 && num(ses, "skipped") == 1, "turns/skipped");
	CHECK(strstr(msg, "session_skip/turn_002.json:") != NULL, "skip message: %s", msg);
	CHECK(num(row(d, 1), "turn_index") == 3, "second row is turn 3");
	xa_session_free(s);
	cJSON_Delete(d);
}

/* ebpf turns 1, 2, 4 (4-digit names, a gap): failed tool (800 ms waste) in 1 and 4. */
static void test_session_ebpf(void)
{
	struct xa_session *s = NULL;
	cJSON *d = session_report(TD "session_ebpf", "session_ebpf", &s);
	const cJSON *ses = cJSON_GetObjectItem(d, "session");

	CHECK(num(ses, "turns") == 3 && num(ses, "incomplete") == 1, "turns/incomplete");
	CHECK(!strcmp(str(ses, "tier"), "ciphertext"), "tier");
	CHECK(num(find(d, "l3", "compute.waste.failed_tool_call"), "fired_turns") == 2,
	      "failed tool frequency");
	CHECK(num(row(d, 2), "turn_index") == 4, "third row is turn 4");
	expect_l1(d, 100 * MS, 600 * MS, 1600 * MS, 700 * MS);
	/* Session savings: the sum over the turns it fired in (800 + 800 ms of failed tools). */
	expect_saved(d, "compute.waste.failed_tool_call", 1600 * MS);
	xa_session_free(s);
	cJSON_Delete(d);
}

static void test_errors(void)
{
	struct xa_options o = opts(3, 0.2, 0);
	struct xa_session *s = NULL;
	struct xa_turn *t = NULL;
	char buf[4096] = "";
	FILE *err = fmemopen(buf, sizeof(buf) - 1, "w");

	CHECK(xa_analyze_turn_file(TD "session_skip/turn_002.json", &o, &t, err) == XA_EINVALID,
	      "invalid turn accepted");
	fclose(err);
	CHECK(t == NULL && strstr(buf, "turn_002.json:") != NULL, "error text: %s", buf);
	CHECK(xa_analyze_session_dir(TD "no_such_dir", &o, &s, NULL) == XA_EINVALID, "missing dir");
	CHECK(xa_analyze_session_dir(TD, &o, &s, NULL) == XA_EINVALID, "dir without turns");
}

int main(int argc, char **argv)
{
	outdir = argc > 1 ? argv[1] : ".";
	test_overlap();
	test_threshold();
	test_waste_in_llm();
	test_missing_counters();
	test_hw_counters();
	test_no_spans();
	test_all_idle();
	test_nested_tools();
	test_ebpf();
	test_measurability();
	test_ciphertext();
	test_gpu();
	test_custom_stage();
	test_full();
	test_cost();
	test_session_growth();
	test_session_skip();
	test_session_ebpf();
	test_errors();
	printf("%d failed\n", test_failures);
	return test_failures ? 1 : 0;
}
