/* SPDX-License-Identifier: MIT */
/*
 * rules.c - the few rules the tables need as code (theory.h), written once:
 * the writers (core/, sdk/) and the analyzer call these, never copies.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/cmp.h"
#include "theory/theory.h"

const char *const th_fused_kind_names[] = {
	"ttft", "streaming_gap", "prompt_transfer", "response_transfer", NULL,
};

enum th_domain th_stage_domain(const struct th_stage *st)
{
	enum th_domain d = XP_DOMAIN_COMPUTE;

	if (st)
		return st->domain;
	th_domain_parse(th_rules.unknown_stage_domain, &d);
	return d;
}

int th_supply_stage(const struct th_stage *st, const char *stage, enum th_domain d)
{
	return (st && st->supply) ||
	       (th_domains[d].rule == XP_RULE_NAME_WAIT && stage && strstr(stage, "wait"));
}

enum th_category th_category_of(const struct th_stage *st, const char *stage, int wasted,
				int measured, uint64_t on_cpu_ns, uint64_t dur_ns)
{
	enum th_domain d = th_stage_domain(st);

	if (wasted)
		return XP_CAT_WASTE;
	if (th_supply_stage(st, stage, d) ||
	    (th_domains[d].rule == XP_RULE_CPU_RATIO && measured && dur_ns > 0 &&
	     (double)on_cpu_ns < th_rules.cpu_ratio_supply * (double)dur_ns))
		return XP_CAT_SUPPLY;
	return XP_CAT_PROCESSING;
}

uint64_t th_stream_gap_threshold(const uint64_t *t, size_t n)
{
	uint64_t min_ns = (uint64_t)(th_rules.streaming_gap_min_ms * 1e6), *g;
	double ratio;

	if (n < 3 || !(g = malloc((n - 1) * sizeof(*g))))
		return UINT64_MAX;
	for (size_t i = 1; i < n; i++)
		g[i - 1] = t[i] > t[i - 1] ? t[i] - t[i - 1] : 0;
	qsort(g, n - 1, sizeof(*g), xp_cmp_u64);
	ratio = th_rules.streaming_gap_ratio * (double)g[(n - 1) / 2];
	free(g);
	if (ratio >= 0x1p64) /* no gap can be that long: none is one */
		return UINT64_MAX;
	/* g > ratio x median (g is an integer) and g >= min_ns */
	return (uint64_t)ratio > min_ns - 1 ? (uint64_t)ratio : min_ns - 1;
}
