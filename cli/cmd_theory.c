/* SPDX-License-Identifier: MIT */
/*
 * cmd_theory.c - `xperf theory [--format text|json]`: print the Top-down
 * model (grades, domains, categories and their formulas, L2, L3, L4, the
 * stage map, waste kinds, counters, rules) straight from the theory tables.
 * Text is wrapped for 80 columns; JSON is built with cJSON.
 */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/commands.h"
#include "lib/args.h"
#include "lib/json_int.h"
#include "theory/theory.h"

#define WIDTH 78

static const char *const rule_names[] = {
	[XP_RULE_CPU_RATIO] = "cpu_ratio",
	[XP_RULE_NAME_WAIT] = "name_wait",
	[XP_RULE_SUPPLY_LIST] = "supply_list",
};

static const char *cmp_name(enum th_cmp c)
{
	return c == XP_FIRE_ABOVE ? "above" : "below";
}

static const char *kind_name(enum th_counter_kind k)
{
	return k == XP_COUNTER_HW ? "hw" : "sw";
}

static const char doc[] =
	"Print the Top-down model: domains, categories, L2, L3, L4, stages, rules.";

enum { OPT_FORMAT = 256 };

static const struct argp_option options[] = {
	{ "format", OPT_FORMAT, "text|json", 0, "output format (text by default)", 0 },
	{ 0 },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	static const char *const formats[] = { "text", "json" };
	int *json = state->input;

	if (key != OPT_FORMAT)
		return ARGP_ERR_UNKNOWN;
	*json = xp_args_choice(state, arg, formats, 2);
	return 0;
}

/* Print `label` then `text` word-wrapped to WIDTH, continuation lines indented by `indent`. */
static void wrap(int indent, const char *label, const char *text)
{
	int col = printf("%*s%s", indent, "", label);

	while (*text) {
		size_t n = strcspn(text, " ");

		if (col + 1 + (int)n > WIDTH && col > indent + (int)strlen(label))
			col = printf("\n%*s", indent + 2, "") - 1;
		else if (col > indent + (int)strlen(label) || *label)
			col += printf(" ");
		col += printf("%.*s", (int)n, text);
		text += n;
		text += strspn(text, " ");
	}
	putchar('\n');
}

static void text_model(void)
{
	printf("Measurability grades\n");
	for (int g = 0; g < XP_GRADE_COUNT; g++)
		wrap(2, th_grade_names[g], th_grade_meanings[g]);
	printf("\nDomains (L1) and how each derives Supply when no waste mark applies\n");
	for (int d = 0; d < XP_DOMAIN_COUNT; d++) {
		printf("  %-12s %s [rule: %s]\n", th_domains[d].key, th_domains[d].name,
		       rule_names[th_domains[d].rule]);
		wrap(4, "", th_domains[d].meaning);
	}
	printf("\nCategories and their formulas\n");
	for (int c = 0; c < XP_CAT_COUNT; c++) {
		printf("  %-12s %s: %s\n", th_categories[c].key, th_categories[c].name,
		       th_categories[c].meaning);
		wrap(4, "=", th_categories[c].formula);
	}
	printf("\nL2 subclasses (domain x category)\n");
	for (size_t i = 0; i < th_l2_count; i++) {
		const struct th_l2 *l2 = &th_l2_table[i];

		printf("  %-24s %s\n", l2->id, l2->name);
		wrap(4, "", l2->meaning);
		wrap(4, "measured by:", l2->measured_by);
	}
}

/* "metric (unit), fires above 0.2" into buf[256]. */
static const char *fires(char *buf, const char *what, const char *unit, enum th_cmp c, double t)
{
	snprintf(buf, 256, "%s (%s), fires %s %g", what, unit, cmp_name(c), t);
	return buf;
}

static void text_l3(void)
{
	char buf[256];

	printf("\nL3 bottleneck points (fire when metric is above/below threshold)\n");
	for (size_t i = 0; i < th_l3_count; i++) {
		const struct th_l3 *p = &th_l3_table[i];

		printf("  %s [%s] %s\n", p->id, th_grade_names[p->grade], p->name);
		wrap(4, "metric:", fires(buf, p->metric, p->unit, p->cmp, p->threshold));
		wrap(4, "fix:", p->suggestion);
	}
}

static void text_l4(void)
{
	char buf[256];

	printf("\nL4 root causes (counters; hw needs a PMU)\n");
	for (size_t i = 0; i < th_l4_count; i++) {
		const struct th_l4 *r = &th_l4_table[i];

		printf("  %-18s %s [%s: %s]\n", r->id, r->name, kind_name(r->kind), r->counters);
		wrap(4, "=", fires(buf, r->formula, r->unit, r->cmp, r->threshold));
		wrap(4, "why:", r->meaning);
		wrap(4, "fix:", r->suggestion);
	}
}

static void text_stages(void)
{
	char buf[160];

	printf("\nStage map (stage, domain, supply stage, productive stage)\n");
	for (size_t i = 0; i < th_stage_count; i++) {
		const struct th_stage *s = &th_stage_table[i];

		printf("  %-18s %-12s%s%s\n", s->name, th_domains[s->domain].key,
		       s->supply ? " supply" : "", s->effective ? " productive" : "");
		wrap(4, "home:", s->l3_home);
		wrap(4, "supply:", s->supply_l3);
		if (s->effective) {
			if (s->work_attr)
				snprintf(buf, sizeof(buf), "%s, min(P, %s x %g ns)",
					 s->effective_l3, s->work_attr, s->ref_ns_per_unit);
			else
				snprintf(buf, sizeof(buf), "%s, all of P", s->effective_l3);
			wrap(4, "effective:", buf);
		}
	}
	printf("\nWaste mark kinds -> L3\n");
	for (size_t i = 0; i < th_waste_kind_count; i++)
		printf("  %-20s %s\n", th_waste_kind_table[i].kind, th_waste_kind_table[i].l3_id);
	printf("\nCounters\n");
	for (size_t i = 0; i < th_counter_name_count; i++)
		printf("  %-20s %s, %s\n", th_counter_name_table[i].name,
		       kind_name(th_counter_name_table[i].kind), th_counter_name_table[i].unit);
}

static void text_rules(void)
{
	const struct th_rules *r = &th_rules;

	printf("\nRules\n");
	printf("  cpu_ratio_supply      %g (compute span supply when on_cpu/dur below)\n",
	       r->cpu_ratio_supply);
	printf("  drill_threshold       %g (descend into nodes above this share)\n",
	       r->drill_threshold);
	printf("  streaming_gap         > %g x median gap and >= %g ms\n", r->streaming_gap_ratio,
	       r->streaming_gap_min_ms);
	printf("  ref_decode_tps        %g tokens/s\n", r->ref_decode_tps);
	printf("  unknown stages        domain %s, L3 %s\n", r->unknown_stage_domain,
	       r->unknown_stage_l3);
	printf("  uncovered turn time   charged as stage %s\n", r->uncovered_stage);
	printf("  waste                 highest priority, then supply, then effective\n");
}

static void add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static void json_l3(cJSON *o, const struct th_l3 *p)
{
	add_str(o, "id", p->id);
	add_str(o, "l2", p->l2_id);
	add_str(o, "grade", th_grade_names[p->grade]);
	add_str(o, "name", p->name);
	add_str(o, "metric", p->metric);
	add_str(o, "unit", p->unit);
	cJSON_AddNumberToObject(o, "threshold", p->threshold);
	add_str(o, "fires", cmp_name(p->cmp));
	add_str(o, "suggestion", p->suggestion);
}

static void json_l4(cJSON *o, const struct th_l4 *r)
{
	add_str(o, "id", r->id);
	add_str(o, "name", r->name);
	add_str(o, "formula", r->formula);
	add_str(o, "unit", r->unit);
	cJSON_AddNumberToObject(o, "threshold", r->threshold);
	add_str(o, "fires", cmp_name(r->cmp));
	add_str(o, "counters", r->counters);
	add_str(o, "kind", kind_name(r->kind));
	add_str(o, "meaning", r->meaning);
	add_str(o, "suggestion", r->suggestion);
}

static void json_stage(cJSON *o, const struct th_stage *s)
{
	add_str(o, "name", s->name);
	add_str(o, "domain", th_domains[s->domain].key);
	cJSON_AddBoolToObject(o, "supply", s->supply);
	cJSON_AddBoolToObject(o, "productive", s->effective);
	add_str(o, "l3_home", s->l3_home);
	add_str(o, "supply_l3", s->supply_l3);
	add_str(o, "effective_l3", s->effective_l3);
	add_str(o, "work_attr", s->work_attr);
	cJSON_AddNumberToObject(o, "ref_ns_per_unit", s->ref_ns_per_unit);
}

static void json_rules(cJSON *o)
{
	cJSON_AddNumberToObject(o, "cpu_ratio_supply", th_rules.cpu_ratio_supply);
	cJSON_AddNumberToObject(o, "drill_threshold", th_rules.drill_threshold);
	cJSON_AddNumberToObject(o, "streaming_gap_ratio", th_rules.streaming_gap_ratio);
	cJSON_AddNumberToObject(o, "streaming_gap_min_ms", th_rules.streaming_gap_min_ms);
	cJSON_AddNumberToObject(o, "ref_decode_tps", th_rules.ref_decode_tps);
	add_str(o, "unknown_stage_domain", th_rules.unknown_stage_domain);
	add_str(o, "unknown_stage_l3", th_rules.unknown_stage_l3);
	add_str(o, "uncovered_stage", th_rules.uncovered_stage);
}

static void json_heads(cJSON *root)
{
	cJSON *a = cJSON_AddArrayToObject(root, "grades"), *o;

	for (int g = 0; g < XP_GRADE_COUNT; g++) {
		o = xp_json_item(a);
		add_str(o, "grade", th_grade_names[g]);
		add_str(o, "meaning", th_grade_meanings[g]);
	}
	a = cJSON_AddArrayToObject(root, "domains");
	for (int d = 0; d < XP_DOMAIN_COUNT; d++) {
		o = xp_json_item(a);
		add_str(o, "key", th_domains[d].key);
		add_str(o, "name", th_domains[d].name);
		add_str(o, "meaning", th_domains[d].meaning);
		add_str(o, "supply_rule", rule_names[th_domains[d].rule]);
	}
	a = cJSON_AddArrayToObject(root, "categories");
	for (int c = 0; c < XP_CAT_COUNT; c++) {
		o = xp_json_item(a);
		add_str(o, "key", th_categories[c].key);
		add_str(o, "name", th_categories[c].name);
		add_str(o, "meaning", th_categories[c].meaning);
		add_str(o, "formula", th_categories[c].formula);
	}
	a = cJSON_AddArrayToObject(root, "l2");
	for (size_t i = 0; i < th_l2_count; i++) {
		o = xp_json_item(a);
		add_str(o, "id", th_l2_table[i].id);
		add_str(o, "domain", th_domains[th_l2_table[i].domain].key);
		add_str(o, "category", th_categories[th_l2_table[i].category].key);
		add_str(o, "name", th_l2_table[i].name);
		add_str(o, "meaning", th_l2_table[i].meaning);
		add_str(o, "measured_by", th_l2_table[i].measured_by);
	}
}

static void json_tables(cJSON *root)
{
	cJSON *a = cJSON_AddArrayToObject(root, "l3"), *o;

	for (size_t i = 0; i < th_l3_count; i++)
		json_l3(xp_json_item(a), &th_l3_table[i]);
	a = cJSON_AddArrayToObject(root, "l4");
	for (size_t i = 0; i < th_l4_count; i++)
		json_l4(xp_json_item(a), &th_l4_table[i]);
	a = cJSON_AddArrayToObject(root, "stages");
	for (size_t i = 0; i < th_stage_count; i++)
		json_stage(xp_json_item(a), &th_stage_table[i]);
	a = cJSON_AddArrayToObject(root, "waste_kinds");
	for (size_t i = 0; i < th_waste_kind_count; i++) {
		o = xp_json_item(a);
		add_str(o, "kind", th_waste_kind_table[i].kind);
		add_str(o, "l3", th_waste_kind_table[i].l3_id);
	}
	a = cJSON_AddArrayToObject(root, "counters");
	for (size_t i = 0; i < th_counter_name_count; i++) {
		o = xp_json_item(a);
		add_str(o, "name", th_counter_name_table[i].name);
		add_str(o, "kind", kind_name(th_counter_name_table[i].kind));
		add_str(o, "unit", th_counter_name_table[i].unit);
	}
	json_rules(cJSON_AddObjectToObject(root, "rules"));
}

static int print_json(void)
{
	cJSON *root = cJSON_CreateObject();

	json_heads(root);
	json_tables(root);
	if (xp_json_fput(root, stdout)) {
		fprintf(stderr, "xperf theory: out of memory\n");
		return XP_EXIT_FAIL;
	}
	return XP_EXIT_OK;
}

int cmd_theory(int argc, char **argv)
{
	static const struct xp_args args = { "xperf theory", options, parse_arg, NULL, doc, 0,
					     NULL };
	int json = 0;

	if (xp_args_parse(&args, argc, argv, &json))
		return XP_EXIT_USAGE;
	if (json)
		return print_json();
	text_model();
	text_l3();
	text_l4();
	text_stages();
	text_rules();
	return fflush(stdout) ? XP_EXIT_FAIL : XP_EXIT_OK;
}
