/* SPDX-License-Identifier: MIT */
/* theory_data.c - the tables of the Top-down model. See theory/README.md. */
#include "theory/theory.h"

const char *const xp_grade_names[XP_GRADE_COUNT] = { "A", "B", "C" };

const struct xp_domain_info xp_domains[XP_DOMAIN_COUNT] = {
	{ XP_DOMAIN_COMPUTE, "compute", "Compute domain",
	  "CPU work of the agent: prompt assembly, response parsing, tools.", XP_RULE_CPU_RATIO },
	{ XP_DOMAIN_INTELLIGENT, "intelligent", "Intelligent domain",
	  "Model inference, on a local GPU or a remote provider.", XP_RULE_NAME_WAIT },
	{ XP_DOMAIN_FUSED, "fused", "Fused domain",
	  "Instants where data crosses between CPU and model.", XP_RULE_SUPPLY_LIST },
};

const struct xp_category_info xp_categories[XP_CAT_COUNT] = {
	{ XP_CAT_SUPPLY, "supply", "Supply Bound", "Waiting for data or a resource.", "" },
	{ XP_CAT_PROCESSING, "processing", "Processing Bound", "Working slower than the reference.", "" },
	{ XP_CAT_WASTE, "waste", "Waste Bound", "Work whose result was discarded.", "" },
	{ XP_CAT_EFFECTIVE, "effective", "Effective Work", "Work that produced the result.", "" },
};

const struct xp_l2 xp_l2_table[] = {
	{ "compute.supply", XP_DOMAIN_COMPUTE, XP_CAT_SUPPLY, "Compute supply", "", "" },
};
const size_t xp_l2_count = sizeof(xp_l2_table) / sizeof(xp_l2_table[0]);

const struct xp_l3 xp_l3_table[] = {
	{ "fused.supply.ttft", "fused.supply", XP_GRADE_A, "Time to first token", "ttft_ms", "ms", 2000,
	  XP_FIRE_ABOVE, "" },
};
const size_t xp_l3_count = sizeof(xp_l3_table) / sizeof(xp_l3_table[0]);

const struct xp_l4 xp_l4_table[] = {
	{ "ipc_low", "Low IPC", "instructions / cycles", "ratio", 1.0, XP_FIRE_BELOW, "instructions,cycles",
	  XP_COUNTER_HW, "", "" },
};
const size_t xp_l4_count = sizeof(xp_l4_table) / sizeof(xp_l4_table[0]);

const struct xp_stage xp_stage_table[] = {
	{ "prompt_assembly", XP_DOMAIN_COMPUTE, 0, 1, "compute.processing.prompt_assembly" },
};
const size_t xp_stage_count = sizeof(xp_stage_table) / sizeof(xp_stage_table[0]);

const struct xp_rules xp_rules = { 0.3, 0.2, 2.0, 50.0, 50.0, "compute" };
