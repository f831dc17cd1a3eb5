/* SPDX-License-Identifier: MIT */
/*
 * theory_test.c - invariants of the theory tables: the 12 L2 cover every
 * domain x category once, L3 ids are unique and sit under their L2, every
 * threshold is finite and in range, every stage has a domain and existing L3
 * homes of the right category, L4 rows name known counters, waste kinds map
 * to waste points, and the seed's stage map and rules are all there.
 */
#include "theory/theory.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/counters.h"
#include "lib/test_check.h"

static int nonempty(const char *s)
{
	return s && *s;
}

static void test_l2(void)
{
	int seen[XP_DOMAIN_COUNT][XP_CAT_COUNT] = { { 0 } };
	char want[64];

	CHECK(th_l2_count == 12, "want 12 L2, have %zu", th_l2_count);
	for (size_t i = 0; i < th_l2_count; i++) {
		const struct th_l2 *l2 = &th_l2_table[i];

		CHECK(l2->domain < XP_DOMAIN_COUNT && l2->category < XP_CAT_COUNT, "%s: bad enum",
		      l2->id);
		seen[l2->domain][l2->category]++;
		snprintf(want, sizeof(want), "%s.%s", th_domains[l2->domain].key,
			 th_categories[l2->category].key);
		CHECK(!strcmp(l2->id, want), "L2 %s should be named %s", l2->id, want);
		CHECK(nonempty(l2->name) && nonempty(l2->meaning) && nonempty(l2->measured_by),
		      "%s: empty text", l2->id);
		CHECK(th_l2_of(l2->domain, l2->category) == l2, "%s: th_l2_of", l2->id);
	}
	for (int d = 0; d < XP_DOMAIN_COUNT; d++)
		for (int c = 0; c < XP_CAT_COUNT; c++)
			CHECK(seen[d][c] == 1, "domain %d category %d covered %d times", d, c,
			      seen[d][c]);
	for (int c = 0; c < XP_CAT_COUNT; c++)
		CHECK(nonempty(th_categories[c].formula), "category %s has no formula",
		      th_categories[c].key);
}

static void check_threshold(const char *id, const char *unit, double t)
{
	CHECK(isfinite(t), "%s: threshold not finite", id);
	CHECK(t >= 0, "%s: negative threshold", id);
	if (!strcmp(unit, "ratio"))
		CHECK(t <= 1.0, "%s: ratio threshold %g outside [0,1]", id, t);
}

static void test_l3(void)
{
	CHECK(th_l3_count >= 28, "want >= 28 L3, have %zu", th_l3_count);
	for (size_t i = 0; i < th_l3_count; i++) {
		const struct th_l3 *p = &th_l3_table[i];
		size_t n = strlen(p->l2_id);

		CHECK(th_l3_find(p->id) == p, "%s: duplicate or unfindable id", p->id);
		CHECK(th_l2_find(p->l2_id) != NULL, "%s: unknown L2 %s", p->id, p->l2_id);
		CHECK(!strncmp(p->id, p->l2_id, n) && p->id[n] == '.' && p->id[n + 1],
		      "%s: id does not extend its L2 %s", p->id, p->l2_id);
		CHECK(p->grade < XP_GRADE_COUNT, "%s: bad grade", p->id);
		CHECK(p->cmp == XP_FIRE_ABOVE || p->cmp == XP_FIRE_BELOW, "%s: bad cmp", p->id);
		CHECK(nonempty(p->name) && nonempty(p->metric) && nonempty(p->unit), "%s: text",
		      p->id);
		CHECK(p->suggestion && strlen(p->suggestion) >= 40, "%s: suggestion too thin",
		      p->id);
		check_threshold(p->id, p->unit, p->threshold);
	}
	for (size_t i = 0; i < th_l2_count; i++) {
		int n = 0;

		for (size_t j = 0; j < th_l3_count; j++)
			n += !strcmp(th_l3_table[j].l2_id, th_l2_table[i].id);
		CHECK(n > 0, "L2 %s has no L3 point", th_l2_table[i].id);
	}
}

/* The points issue 2 asks for by name. */
static void test_required_l3(void)
{
	static const char *const ids[] = {
		"fused.supply.ttft", "fused.supply.rate_limit", "fused.supply.streaming_gap",
		"fused.supply.request_upload", "intelligent.processing.slow_decode",
		"intelligent.processing.long_prefill", "intelligent.supply.gpu_host_wait",
		"intelligent.supply.gpu_launch_overhead", "intelligent.processing.gpu_memcpy",
		"intelligent.effective.gpu_kernel", "compute.processing.prompt_assembly",
		"compute.processing.response_parse", "compute.processing.tool_cpu",
		"compute.supply.tool_io_blocked", "compute.supply.runqueue_delay",
		"compute.processing.context_compress", "compute.processing.state_serialize",
		"compute.processing.memory_ops", "compute.waste.failed_tool_call",
		"compute.waste.repeated_tool_call", "intelligent.waste.retry",
		"intelligent.waste.truncated_output", "fused.waste.aborted_stream",
		"intelligent.waste.llm_error", "intelligent.processing.context_growth",
		"intelligent.effective.decode", "compute.effective.prompt_assembly",
		"compute.effective.tool_execution",
	};

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		CHECK(th_l3_find(ids[i]) != NULL, "missing required L3 %s", ids[i]);
}

/* An L3 id that exists and whose L2 has the given domain and category. */
static int l3_is(const char *id, enum th_domain d, enum th_category c)
{
	const struct th_l3 *p = th_l3_find(id);
	const struct th_l2 *l2 = p ? th_l2_find(p->l2_id) : NULL;

	return l2 && l2->domain == d && l2->category == c;
}

static void check_stage(const struct th_stage *s)
{
	const struct th_l3 *home = th_l3_find(s->l3_home);
	const struct th_l3 *sup = th_l3_find(s->supply_l3);

	CHECK(s->domain < XP_DOMAIN_COUNT, "%s: bad domain", s->name);
	CHECK(home != NULL, "%s: unknown l3_home %s", s->name, s->l3_home);
	CHECK(home && th_l2_find(home->l2_id)->domain == s->domain, "%s: home in another domain",
	      s->name);
	CHECK(sup && th_l2_find(sup->l2_id)->category == XP_CAT_SUPPLY, "%s: bad supply_l3 %s",
	      s->name, s->supply_l3);
	if (s->supply)
		CHECK(s->l3_home == s->supply_l3 || !strcmp(s->l3_home, s->supply_l3),
		      "%s: supply stage whose home is not its supply point", s->name);
	if (s->effective) {
		CHECK(s->effective_l3 && l3_is(s->effective_l3, s->domain, XP_CAT_EFFECTIVE),
		      "%s: productive stage needs an effective L3 of its domain", s->name);
		CHECK(!s->work_attr || (isfinite(s->ref_ns_per_unit) && s->ref_ns_per_unit > 0),
		      "%s: work attribute without a positive reference", s->name);
		CHECK(!s->supply, "%s: a supply stage cannot be productive", s->name);
	} else {
		CHECK(!s->effective_l3 && !s->work_attr && s->ref_ns_per_unit == 0,
		      "%s: effective fields on a non-productive stage", s->name);
	}
	if (s->domain == XP_DOMAIN_INTELLIGENT && strstr(s->name, "wait"))
		CHECK(s->supply, "%s: intelligent *wait* stage must be supply", s->name);
}

static void test_stages(void)
{
	static const struct {
		const char *name;
		enum th_domain d;
	} seed[] = {
		{ "prompt_assembly", XP_DOMAIN_COMPUTE }, { "response_parse", XP_DOMAIN_COMPUTE },
		{ "tool_call", XP_DOMAIN_COMPUTE }, { "tool_compute", XP_DOMAIN_COMPUTE },
		{ "orchestration", XP_DOMAIN_COMPUTE }, { "context_compress", XP_DOMAIN_COMPUTE },
		{ "state_serialize", XP_DOMAIN_COMPUTE }, { "memory_ops", XP_DOMAIN_COMPUTE },
		{ "waiting", XP_DOMAIN_COMPUTE }, { "llm_inference", XP_DOMAIN_INTELLIGENT },
		{ "prefill", XP_DOMAIN_INTELLIGENT }, { "decode", XP_DOMAIN_INTELLIGENT },
		{ "sampling", XP_DOMAIN_INTELLIGENT }, { "gpu_kernel", XP_DOMAIN_INTELLIGENT },
		{ "gpu_memcpy", XP_DOMAIN_INTELLIGENT }, { "gpu_memset", XP_DOMAIN_INTELLIGENT },
		{ "gpu_sync", XP_DOMAIN_INTELLIGENT }, { "gpu_idle", XP_DOMAIN_INTELLIGENT },
		{ "prompt_transfer", XP_DOMAIN_FUSED }, { "response_transfer", XP_DOMAIN_FUSED },
		{ "ttft", XP_DOMAIN_FUSED }, { "streaming_gap", XP_DOMAIN_FUSED },
	};

	for (size_t i = 0; i < sizeof(seed) / sizeof(seed[0]); i++) {
		const struct th_stage *s = th_stage_find(seed[i].name);

		CHECK(s && s->domain == seed[i].d, "seed stage %s missing or in wrong domain",
		      seed[i].name);
	}
	for (size_t i = 0; i < th_stage_count; i++) {
		CHECK(th_stage_find(th_stage_table[i].name) == &th_stage_table[i],
		      "duplicate stage %s", th_stage_table[i].name);
		check_stage(&th_stage_table[i]);
	}
	/* The seed's fused rule: ttft/streaming_gap/prompt_transfer are supply. */
	CHECK(th_stage_find("ttft")->supply && th_stage_find("streaming_gap")->supply &&
		      th_stage_find("prompt_transfer")->supply &&
		      !th_stage_find("response_transfer")->supply, "fused supply list");
	CHECK(!th_stage_find("nope"), "unknown stage found");
	CHECK(fabs(th_stage_find("decode")->ref_ns_per_unit * th_rules.ref_decode_tps - 1e9) < 1,
	      "decode reference disagrees with ref_decode_tps");
}

/* Every name in a comma-separated list is a counter or a sched field. */
static int counters_known(const char *list, int *any_hw)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	*any_hw = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const struct th_counter_name *c = th_counter_name_find(t);

		if (c)
			*any_hw |= c->kind == XP_COUNTER_HW;
		else if (strcmp(t, "sched.runq_ns") && strcmp(t, "sched.on_cpu_ns") &&
			 strcmp(t, "sched.blocked_ns"))
			return 0;
	}
	return 1;
}

static void test_l4(void)
{
	static const char *const want[] = { "ipc_low", "l1d_mpki", "llc_mpki", "branch_mpki",
					    "page_fault_rate", "major_faults", "ctx_switch_rate",
					    "migration_rate", "runq_latency" };
	int hw;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(th_l4_find(want[i]) != NULL, "missing L4 %s", want[i]);
	for (size_t i = 0; i < th_l4_count; i++) {
		const struct th_l4 *r = &th_l4_table[i];

		CHECK(counters_known(r->counters, &hw), "%s: unknown counter in %s", r->id,
		      r->counters);
		CHECK((r->kind == XP_COUNTER_HW) == hw, "%s: hw/sw kind disagrees with counters",
		      r->id);
		CHECK(th_l4_find(r->id) == r, "%s: duplicate", r->id);
		CHECK(nonempty(r->formula) && nonempty(r->meaning) && nonempty(r->suggestion),
		      "%s: text", r->id);
		check_threshold(r->id, r->unit, r->threshold);
	}
}

/* Ground truth: the TurnTrace names, in the order of lib/counters.h's enum xp_counter. */
static void test_counters(void)
{
	static const char *const names[] = { "task_clock_ns", "context_switches", "cpu_migrations",
					     "page_faults", "major_faults", "instructions",
					     "cycles", "l1d_misses", "llc_misses", "branch_misses",
					     "branch_instructions", "l1d_loads", "llc_loads" };
	const size_t n = sizeof(names) / sizeof(names[0]);

	CHECK(th_counter_name_count == n, "want %zu counters", n);
	for (size_t i = 0; i < n && i < th_counter_name_count; i++) {
		CHECK(!strcmp(th_counter_name_table[i].name, names[i]), "counter %zu is %s", i,
		      th_counter_name_table[i].name);
		CHECK((th_counter_name_table[i].kind == XP_COUNTER_HW) == xp_counter_is_hw(i),
		      "counter %s: kind disagrees with lib/counters.c", names[i]);
	}
}

static void test_waste_and_rules(void)
{
	char suffix[64];

	CHECK(th_waste_kind_count == 7, "want the 7 waste kinds of schema/README.md");
	for (size_t i = 0; i < th_waste_kind_count; i++) {
		const struct th_waste_kind *w = &th_waste_kind_table[i];
		const struct th_l3 *p = th_l3_find(w->l3_id);

		snprintf(suffix, sizeof(suffix), ".waste.%s", w->kind);
		CHECK(p && th_l2_find(p->l2_id)->category == XP_CAT_WASTE, "%s: bad l3", w->kind);
		CHECK(strstr(w->l3_id, suffix) && !strcmp(strstr(w->l3_id, suffix), suffix),
		      "%s: l3 %s not named after the kind", w->kind, w->l3_id);
		CHECK(th_waste_kind_find(w->kind) == w, "%s: lookup", w->kind);
	}
	CHECK(th_rules.cpu_ratio_supply == 0.3, "seed rule: cpu ratio 0.3");
	CHECK(th_rules.drill_threshold == 0.2, "seed rule: drill threshold 20%%");
	CHECK(th_rules.streaming_gap_ratio > 1 && th_rules.streaming_gap_min_ms > 0, "gap rule");
	CHECK(th_l3_find(th_rules.unknown_stage_l3) != NULL, "unknown_stage_l3");
	CHECK(th_stage_find(th_rules.uncovered_stage) != NULL, "uncovered_stage");
	enum th_domain d;
	CHECK(th_domain_parse(th_rules.unknown_stage_domain, &d) == 0 && d == XP_DOMAIN_COMPUTE,
	      "unknown stages go to compute");
	CHECK(th_domain_parse("gpu", &d) == -1, "domain parse accepts junk");
	for (int g = 0; g < XP_GRADE_COUNT; g++)
		CHECK(nonempty(th_grade_names[g]) && nonempty(th_grade_meanings[g]), "grade %d", g);
}

int main(void)
{
	test_l2();
	test_l3();
	test_required_l3();
	test_stages();
	test_l4();
	test_counters();
	test_waste_and_rules();
	if (test_failures)
		fprintf(stderr, "%d theory invariant(s) broken\n", test_failures);
	return test_failures != 0;
}
