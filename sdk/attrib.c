/* SPDX-License-Identifier: MIT */
/*
 * attrib.c - automatic attribution from the theory tables: a span's domain
 * comes from the stage map, its category from its domain's bound rule
 * (xp_domains[].rule), waste marks win; a waste kind is charged to its L3
 * point (xp_waste_kind_table). Unknown stages go to
 * xp_rules.unknown_stage_domain. Nothing here is decided by name: change the
 * tables in theory/theory_data.c and attribution follows.
 */
#include <string.h>

#include "sdk/internal.h"

/* The mark kinds TurnTrace v1 accepts (schema/README.md). */
static const char *const fused_kinds[] = {
	"ttft", "streaming_gap", "prompt_transfer", "response_transfer",
};

static int in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		if (strcmp(s, list[i]) == 0)
			return 1;
	return 0;
}

int xp_stage_valid(const char *name)
{
	return xp_name_valid(name, XP_STAGE_MAX);
}

static enum xp_domain span_domain(const struct xp_span *sp)
{
	enum xp_domain d = XP_DOMAIN_COMPUTE;

	if (sp->st)
		return sp->st->domain;
	xp_domain_parse(xp_rules.unknown_stage_domain, &d);
	return d;
}

const char *xp_span_domain(const struct xp_span *sp)
{
	return xp_domains[span_domain(sp)].key;
}

/*
 * Supply or processing by the domain's rule. A span closed by end_turn has
 * no CPU time: the CPU-ratio rule cannot tell, and it is counted as supply
 * (the writer adds a warning).
 */
static int supply_bound(const struct xp_span *sp)
{
	uint64_t dur = sp->end_ns - sp->start_ns;

	switch (xp_domains[span_domain(sp)].rule) {
	case XP_RULE_CPU_RATIO:
		return !sp->measured ||
		       (double)sp->cpu_ns < xp_rules.cpu_ratio_supply * (double)dur;
	case XP_RULE_NAME_WAIT:
		return strstr(sp->stage, "wait") != NULL || (sp->st && sp->st->supply);
	case XP_RULE_SUPPLY_LIST:
		return sp->st && sp->st->supply;
	}
	return 0;
}

const char *xp_span_category(const struct xp_span *sp)
{
	if (sp->waste)
		return xp_categories[XP_CAT_WASTE].key;
	return xp_categories[supply_bound(sp) ? XP_CAT_SUPPLY : XP_CAT_PROCESSING].key;
}

int xp_fused_kind_valid(const char *kind)
{
	return in_list(kind, fused_kinds, sizeof(fused_kinds) / sizeof(fused_kinds[0]));
}

const char *xp_waste_l3(const char *kind)
{
	const struct xp_waste_kind *w = kind ? xp_waste_kind_find(kind) : NULL;

	return w ? w->l3_id : NULL;
}
