/* SPDX-License-Identifier: MIT */
/*
 * writer_test.c - the writer on a turn built by hand with recorded counter
 * values, as a machine with a hardware PMU produces them (this one has
 * none): hardware counters land in counters.values with their exact values,
 * nothing is "unavailable", no missing-PMU warning is added, timestamps
 * above 2^53 ns stay exact integers, and the document validates.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/write.h"
#include "lib/json_int.h"
#include "schema/validate.h"
#include "sdk/internal.h"
#include "sdk/testutil.h"

#define T0 9007199254740993ull /* 2^53 + 1: not a double */

static const double recorded[XP_CTR_COUNT] = {
	[XP_CTR_TASK_CLOCK] = 4100000, [XP_CTR_CTX_SWITCHES] = 3, [XP_CTR_PAGE_FAULTS] = 120,
	[XP_CTR_INSTRUCTIONS] = 9800000, [XP_CTR_CYCLES] = 12500000,
	[XP_CTR_L1D_MISSES] = 41000, [XP_CTR_L1D_LOADS] = 2900000, [XP_CTR_LLC_MISSES] = 800,
	[XP_CTR_LLC_LOADS] = 9000, [XP_CTR_BRANCH_MISSES] = 17000,
	[XP_CTR_BRANCHES] = 1900000,
};

static void print_error(const struct sc_verror *e, void *ctx)
{
	char line[1024];

	(void)ctx;
	fprintf(stderr, "invalid: %s\n", sc_verror_format(e, line, sizeof(line)));
}

int main(void)
{
	struct sd_span sp = { .ctr_mask = (1ull << XP_CTR_COUNT) - 1 };
	struct sd_turn t = { .tt = tt_turn_new(NULL, 7, "sdk", "sdk"), .spans = &sp, .nspans = 1 };
	struct tt_span *cs;
	struct sd_agent ag = { .name = "recorded", .pid = 4242 };
	const cJSON *s, *values;
	struct tt_turn *turn;
	char *text;
	cJSON *doc;
	int nerr;

	CHECK(t.tt != NULL);
	t.tt->start_ns = T0;
	t.tt->end_ns = T0 + 6000000;
	t.tt->complete = 1;
	cs = tt_span_add(t.tt, 0, "prompt_assembly", T0 + 1000, T0 + 5001000, 4242);
	CHECK(cs != NULL);
	cs->sched = TT_SCHED_ON_CPU;
	cs->on_cpu_ns = 4000000;
	memcpy(sp.ctr, recorded, sizeof(sp.ctr));
	turn = sd_turn_core(&t, "hw-session", &ag);
	text = tt_turn_text(turn);
	tt_turn_free(turn);
	nerr = sc_validate_buffer("<writer>", text, strlen(text), print_error, NULL);
	doc = xp_json_parse(text, strlen(text));
	CHECK(doc != NULL && nerr == 0);
	CHECK(strstr(text, "\"start_ns\":\t9007199254740993") != NULL); /* exact, not 9.007e15 */
	s = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "spans"), 0);
	values = cJSON_GetObjectItem(cJSON_GetObjectItem(s, "counters"), "values");
	for (int c = 0; c < XP_CTR_COUNT; c++)
		CHECK(tu_int(values, th_counter_name_table[c].name) == (int64_t)recorded[c]);
	CHECK(!cJSON_GetObjectItem(cJSON_GetObjectItem(s, "counters"), "unavailable") ||
	      cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "counters"),
						     "unavailable")) == 0);
	CHECK(!tu_has_warning(doc, "hardware counters unavailable"));
	CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(s, "category")), "processing") == 0);
	cJSON_Delete(doc);
	free(text);
	return tu_done("writer_test");
}
