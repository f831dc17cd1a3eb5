// SPDX-License-Identifier: MIT
/*
 * unit_test.c - the analyzer's inner stages on small inline turns: the L4
 * formula evaluator (expr.c), the overlap priority and carving of
 * normalize.c, the turn builder's refusals (turn.c), the L3 lookups and the
 * session's slowest turns (aggregate.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/model.h"
#include "core/read.h"
#include "lib/test_check.h"


static size_t var(const char *name)
{
	for (size_t i = 0; xa_var_name(i); i++)
		if (!strcmp(xa_var_name(i), name))
			return i;
	abort();
}

static void test_expr(void)
{
	double v[XA_NVAR] = { 0 }, out = -1;
	uint32_t have = 0;
	char why[64];

	v[var("l1d_misses")] = 5e7, have |= 1u << var("l1d_misses");
	v[var("instructions")] = 2e9, have |= 1u << var("instructions");
	v[var("page_faults")] = 30, have |= 1u << var("page_faults");
	v[var("task_clock_ns")] = 3e6, have |= 1u << var("task_clock_ns");
	have |= 1u << var("context_switches") | 1u << var("cpu_migrations");
	CHECK(!xa_expr_eval("1000 * l1d_misses / instructions", v, have, &out, why, sizeof(why)) &&
	      out == 25, "mpki %g", out);
	CHECK(!xa_expr_eval("page_faults / (task_clock_ns / 1e6)", v, have, &out, why,
			    sizeof(why)) && out == 10, "parenthesized %g", out);
	CHECK(!xa_expr_eval("cpu_migrations / context_switches (0 if none)", v, have, &out, why,
			    sizeof(why)) && out == 0, "0 if none");
	CHECK(xa_expr_eval("cpu_migrations / context_switches", v, have, &out, why, sizeof(why)) &&
	      !strcmp(why, "zero denominator"), "zero denominator: %s", why);
	CHECK(xa_expr_eval("instructions / cycles", v, have, &out, why, sizeof(why)) &&
	      !strcmp(why, "cycles"), "missing counter named: %s", why);
	CHECK(xa_expr_eval("instructions +", v, have, &out, why, sizeof(why)), "syntax accepted");
	CHECK(xa_expr_eval("bogus_counter", v, have, &out, why, sizeof(why)) &&
	      !strcmp(why, "bogus_counter"), "unknown name: %s", why);
	CHECK(xa_expr_eval("2 - 3 - 1", v, have, &out, why, sizeof(why)) == 0 && out == -2,
	      "left associative %g", out);
}

/* Build and normalize a turn whose spans are given as JSON (times in ms). */
static int load(const char *spans, const char *marks, struct xa_trace *tr)
{
	char buf[4096];
	struct tt_turn *t;
	int rc;

	snprintf(buf, sizeof(buf),
		 "{\"schema_version\":\"1.0\",\"session_id\":\"s\",\"turn_index\":1,"
		 "\"complete\":true,\"source\":\"sdk\",\"clock\":\"CLOCK_MONOTONIC\","
		 "\"start_ns\":0,\"end_ns\":1000,\"agent\":{\"name\":\"a\",\"pid\":1},"
		 "\"spans\":[%s],\"waste_marks\":[%s],\"fused_marks\":[],\"data_quality\":"
		 "{\"tier\":\"sdk\",\"dropped_events\":0,\"truncated_payloads\":0,"
		 "\"warnings\":[]}}", spans, marks);
	t = tt_turn_load_buffer("inline", buf, strlen(buf), NULL, NULL, NULL);
	memset(tr, 0, sizeof(*tr)); /* a refused turn leaves an empty trace */
	rc = t ? xa_trace_from_turn(t, "inline", tr) : -1;
	if (!rc) {
		for (size_t i = 0; i < tr->nspans; i++)
			tr->spans[i].domain = tr->spans[i].sp.st->domain;
		rc = xa_normalize(tr);
	}
	return rc;
}

#define SPAN(id, parent, stage, dom, a, b)                                                 \
	"{\"id\":" #id ",\"parent\":" #parent ",\"stage\":\"" stage "\",\"domain\":\"" dom \
	"\",\"category\":\"processing\",\"start_ns\":" #a ",\"end_ns\":" #b "}"

static void test_priority(void)
{
	struct xa_trace tr;

	/* Equal length and depth: fused beats compute on [400,600). */
	CHECK(!load(SPAN(1, null, "tool_call", "compute", 0, 600) ","
		    SPAN(2, null, "prompt_transfer", "fused", 400, 1000), "", &tr), "load 1");
	CHECK(tr.spans[0].excl == 400 && tr.spans[1].excl == 600, "domain rule: %llu %llu",
	      (unsigned long long)tr.spans[0].excl, (unsigned long long)tr.spans[1].excl);
	xa_trace_free(&tr);
	/* Same length and domain: the later start wins; a zero-length span owns nothing. */
	CHECK(!load(SPAN(1, null, "tool_call", "compute", 0, 600) ","
		    SPAN(2, null, "orchestration", "compute", 300, 900) ","
		    SPAN(3, null, "memory_ops", "compute", 500, 500), "", &tr), "load 2");
	CHECK(tr.spans[0].excl == 300 && tr.spans[1].excl == 600 && tr.spans[2].excl == 0,
	      "later start rule");
	CHECK(tr.nsegs == 3 && tr.segs[2].span == -1 && tr.segs[2].start == 900,
	      "uncovered tail segment");
	xa_trace_free(&tr);
	/* A waste-marked top-level span beats a deeper span of another tree. */
	CHECK(!load(SPAN(1, null, "orchestration", "compute", 0, 1000) ","
		    SPAN(2, 1, "tool_call", "compute", 100, 900) ","
		    SPAN(3, null, "tool_call", "compute", 200, 400),
		    "{\"kind\":\"failed_tool_call\",\"l3\":\"compute.waste.failed_tool_call\",\"span\":3,"
		    "\"t_ns\":400}", &tr),
	      "load 3");
	CHECK(tr.spans[2].excl == 200 && tr.spans[1].excl == 600 && tr.spans[0].excl == 200,
	      "waste rule");
	xa_trace_free(&tr);
}

static void test_carving(void)
{
	const char *llm = "{\"id\":1,\"parent\":null,\"stage\":\"llm_inference\",\"domain\":"
			  "\"intelligent\",\"category\":\"processing\",\"start_ns\":0,\"end_ns\":"
			  "1000,\"attributes\":{\"xperf.ttft_ns\":100,\"xperf.token_times_ns\":"
			  "[100,110,120,130,140,800,810,820]}}";
	struct xa_trace tr;

	/* Gaps 10 x6 and 660: median 10, 660 > 2 x 10 but < 50 ms: no stall at ns scale. */
	CHECK(!load(llm, "", &tr), "load llm");
	CHECK(tr.nspans == 2 && !strcmp(tr.spans[1].sp.stage, "ttft") &&
	      tr.spans[1].sp.end_ns == 100 && tr.spans[1].synthetic, "ttft child");
	CHECK(tr.spans[0].excl == 900, "llm keeps the rest: %llu",
	      (unsigned long long)tr.spans[0].excl);
	xa_trace_free(&tr);
}

static void test_refusals(void)
{
	struct xa_trace tr;

	CHECK(load(SPAN(1, 7, "tool_call", "compute", 0, 10), "", &tr), "unknown parent");
	xa_trace_free(&tr);
	CHECK(load(SPAN(1, null, "tool_call", "compute", 0, 10) ","
		   SPAN(1, null, "tool_call", "compute", 0, 10), "", &tr), "duplicate id");
	xa_trace_free(&tr);
	CHECK(load(SPAN(1, 2, "tool_call", "compute", 0, 10) ","
		   SPAN(2, 1, "tool_call", "compute", 0, 10), "", &tr), "parent cycle");
	xa_trace_free(&tr);
	CHECK(load(SPAN(1, null, "tool_call", "compute", 0, 2000), "", &tr), "outside the turn");
	xa_trace_free(&tr);
	CHECK(load(SPAN(1, null, "tool_call", "compute", 0, 10),
		   "{\"l3\":\"compute.waste.failed_tool_call\",\"span\":1e300,\"t_ns\":4}", &tr),
	      "huge span id");
	xa_trace_free(&tr);
}

static void test_lookups(void)
{
	int i = xa_l3_index("fused.supply.ttft");

	CHECK(i >= 0 && !strcmp(th_l3_table[i].id, "fused.supply.ttft"), "l3 index");
	CHECK(xa_l3_index("nope") == -1 && xa_l3_index(NULL) == -1, "unknown l3");
	for (size_t k = 0; k < th_l3_count; k++)
		CHECK(xa_l3_index(th_l3_table[k].id) == (int)k && xa_l3_parent(k) &&
		      !strcmp(xa_l3_parent(k)->id, th_l3_table[k].l2_id), "%s", th_l3_table[k].id);
}

/* The slowest turns: ordered, and a fifth turn of no wall time is kept as it is. */
static void test_slowest(void)
{
	static const uint64_t wall[] = { 30, 10, 40, 20, 0, 0, 25 };
	static const int64_t want[XA_SLOWEST] = { 3, 1, 7, 4, 2 };
	struct xa_session s = { .total = calloc(1, sizeof(struct xa_turn)), .rows = tmpfile() };
	struct xa_turn *t = calloc(1, sizeof(*t));

	CHECK(s.total && s.rows && t, "session set up");
	for (size_t i = 0; t && i < sizeof(wall) / sizeof(*wall); i++) {
		t->head.turn_index = (int64_t)i + 1;
		t->wall = wall[i];
		CHECK(xa_session_add(&s, t) == 0, "turn %zu added", i + 1);
		if (i == 4)
			CHECK(s.nslow == 5 && s.slow[4].turn_index == 5, "fifth turn (0) kept");
	}
	for (unsigned i = 0; i < s.nslow; i++)
		CHECK(s.slow[i].turn_index == want[i], "slowest %u is turn %lld", i,
		      (long long)s.slow[i].turn_index);
	free(t);
	free(s.total);
	fclose(s.rows);
}

int main(void)
{
	test_expr();
	test_priority();
	test_carving();
	test_refusals();
	test_lookups();
	test_slowest();
	printf("%d failed\n", test_failures);
	return test_failures != 0;
}
