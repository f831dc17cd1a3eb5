/* SPDX-License-Identifier: MIT */
/*
 * core_test.c - a turn built, categorized, written and read back: exact
 * 64-bit times, mode 0600, the rules (waste binding through ancestors and by
 * instant, CPU ratio, streaming gaps), the validator's valid fixtures read and written back
 * whole, and refusals with a position and a pointer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/read.h"
#include "core/write.h"
#include "lib/json_int.h"
#include "lib/test_check.h"

#define T0 9007199254740993ull /* 2^53 + 1: a double cannot hold it */
#define MS 1000000ull

/* What a model exchange's span says, as its attributes. */
static void exchange_attrs(cJSON *a)
{
	cJSON *times = cJSON_AddArrayToObject(a, "xperf.token_times_ns");

	cJSON_AddNumberToObject(a, "gen_ai.usage.input_tokens", 12);
	cJSON_AddStringToObject(a, "gen_ai.request.model", "m-req");
	cJSON_AddStringToObject(a, "gen_ai.response.model", ""); /* empty: the request's */
	cJSON_AddItemToArray(cJSON_AddArrayToObject(a, "gen_ai.response.finish_reasons"),
			     cJSON_CreateString("length"));
	cJSON_AddNumberToObject(a, "http.response.status_code", 500);
	cJSON_AddStringToObject(a, "tool.name", "grep");
	cJSON_AddItemToArray(times, xp_json_exact_u64(T0 + 710 * MS));
	cJSON_AddItemToArray(times, xp_json_exact_u64(T0 + 720 * MS));
}

/* The reader types the exchange (core/exchange.c) from those attributes. */
static void check_exchange(const struct tt_exchange *ex)
{
	CHECK(tt_ex_has(ex, TT_EX_INPUT_TOKENS) && ex->num[TT_EX_INPUT_TOKENS] == 12, "tokens");
	CHECK(!tt_ex_has(ex, TT_EX_OUTPUT_TOKENS), "absent stays absent");
	CHECK(tt_ex_has(ex, TT_EX_STATUS) && ex->num[TT_EX_STATUS] == 500, "status");
	CHECK(tt_ex_model(ex) && !strcmp(tt_ex_model(ex), "m-req"), "model: the request's");
	CHECK(ex->str[TT_EX_TOOL] && !strcmp(ex->str[TT_EX_TOOL], "grep"), "tool");
	CHECK(ex->finish_given && ex->nfinish == 1 && ex->finish_length, "cut answer");
	CHECK(ex->ntokens == 2 && ex->token_ns[1] == T0 + 720 * MS, "token times exact");
}

/* One failure rule for the analyzer and the exporters: the status first, then the exit code. */
static void check_failed(void)
{
	struct tt_exchange ex = { 0 };
	char why[32];

	CHECK(!tt_ex_failed(&ex, why, sizeof(why)), "nothing given: not failed");
	ex.num[TT_EX_EXIT_CODE] = 0;
	ex.have = 1u << TT_EX_EXIT_CODE;
	CHECK(!tt_ex_failed(&ex, NULL, 0), "exit code 0");
	ex.num[TT_EX_EXIT_CODE] = -9;
	CHECK(tt_ex_failed(&ex, why, sizeof(why)) && !strcmp(why, "exit code -9"), "exit code -9");
	ex.num[TT_EX_STATUS] = 399;
	ex.have |= 1u << TT_EX_STATUS;
	CHECK(tt_ex_failed(&ex, why, sizeof(why)) && !strcmp(why, "exit code -9"), "399 is no failure");
	ex.num[TT_EX_STATUS] = 1e12;
	CHECK(tt_ex_failed(&ex, why, sizeof(why)) && !strcmp(why, "HTTP status 2147483647"),
	      "status first, saturated");
}

static struct tt_turn *sample(void)
{
	struct tt_turn *t = tt_turn_new("core-test", 1, "ebpf", "plaintext");
	struct tt_span *s;

	tt_str_set(&t->agent.name, "agent");
	t->agent.pid = 42;
	t->start_ns = T0;
	t->end_ns = T0 + 1000 * MS;
	s = tt_span_add(t, 0, "tool_call", T0, T0 + 400 * MS, 7);            /* 1: wasted */
	s->sched = TT_SCHED_ALL;
	s->on_cpu_ns = 300 * MS;
	tt_span_add(t, 1, "tool_exec", T0 + 10 * MS, T0 + 300 * MS, 7);      /* 2: child */
	s = tt_span_add(t, 0, "prompt_assembly", T0 + 500 * MS, T0 + 600 * MS, 7); /* 3 */
	s->sched = TT_SCHED_ON_CPU;
	s->on_cpu_ns = 10 * MS; /* 10% on CPU: supply */
	s = tt_span_add(t, 0, "prompt_assembly", T0 + 700 * MS, T0 + 800 * MS, 7); /* 4: no sched */
	exchange_attrs(s->attrs);
	tt_span_add(t, 0, "my_stage", T0 + 800 * MS, T0 + 900 * MS, 7);        /* 5: custom */
	tt_mark_add(t, "failed_tool_call", "compute.waste.failed_tool_call", 1, T0 + 400 * MS);
	/* span-less: counted, binds to no span (theory: charges no time) */
	tt_mark_add(t, "failed_tool_call", "compute.waste.failed_tool_call", 0, T0 + 850 * MS);
	tt_warn(t, "w");
	tt_warn(t, "w");
	CHECK(t->quality.nwarnings == 1, "a warning is kept once");
	CHECK(tt_turn_categorize(t) == 0, "categorize");
	return t;
}

static void check_rules(const struct tt_turn *t)
{
	static const enum th_category want[] = { XP_CAT_WASTE, XP_CAT_WASTE, XP_CAT_SUPPLY,
						  XP_CAT_PROCESSING, XP_CAT_PROCESSING };

	for (size_t i = 0; i < t->nspans; i++)
		CHECK(t->spans[i].category == want[i], "span %zu: category %d", i + 1,
		      t->spans[i].category);
	CHECK(t->spans[4].st == NULL && t->spans[4].domain == XP_DOMAIN_COMPUTE, "custom");
}

static void check_gaps(void)
{
	uint64_t two[] = { 0, 60 * MS };                 /* one gap: its own median */
	uint64_t even[] = { 0, 60 * MS, 120 * MS, 180 * MS, 480 * MS };
	uint64_t fast[] = { 0, 1 * MS, 2 * MS, 3 * MS, 40 * MS }; /* under the 50 ms floor */

	CHECK(th_stream_gap_threshold(two, 2) == UINT64_MAX, "2 tokens: no gap");
	CHECK(th_stream_gap_threshold(even, 5) == 120 * MS, "2 x median 60 ms");
	CHECK(th_stream_gap_threshold(fast, 5) == 50 * MS - 1, "floor: g >= 50 ms");
}

static void check_round_trip(struct tt_turn *t)
{
	char dir[] = "/tmp/core_testXXXXXX", path[256];
	struct stat st;
	struct tt_turn *back;
	int nerr = 0;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	CHECK(tt_turn_write(t, dir, path, sizeof(path)) == 0, "write");
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "mode 0600");
	back = tt_turn_load(path, NULL, NULL, &nerr);
	CHECK(back && nerr == 0, "read back: %d errors", nerr);
	if (back) {
		CHECK(back->start_ns == T0 && back->spans[0].start_ns == T0, "exact ns");
		CHECK(back->nspans == 5 && back->nwaste == 2, "counts");
		CHECK(back->spans[1].parent_ix == 0 && back->spans[1].depth == 1, "parents");
		CHECK(back->waste[1].span_ix == -1, "a span-less mark binds to no span");
		check_rules(back);
		check_exchange(&back->spans[3].ex);
		CHECK(back->spans[0].ex.have == 0 && !tt_ex_model(&back->spans[0].ex), "no exchange");
	}
	tt_turn_free(back);
	unlink(path);
	rmdir(dir);
}

/*
 * A writer's typed facts go among its free-form attributes in
 * tt_exchange_order, and a turn read back is written as it was read.
 */
static void check_typed_write(void)
{
	static const char want[] = "\"gen_ai.request.model\":\t\"m\",\n"
				   "\t\t\t\t\"gen_ai.usage.input_tokens\":\t12,\n"
				   "\t\t\t\t\"xperf.stream\":\ttrue,\n"
				   "\t\t\t\t\"http.response.body.size\":\t9007199254740992,\n"
				   "\t\t\t\t\"xperf.token_times_ns\":\t[9007199254740993]";
	struct tt_turn *t = tt_turn_new("core-test", 1, "ebpf", "plaintext"), *back;
	struct tt_span *s = tt_span_add(t, 0, "llm_inference", T0, T0 + MS, 7);
	uint64_t tok = T0;
	char *text, *again = NULL;
	int nerr = 0;

	tt_str_set(&t->agent.name, "agent");
	t->agent.pid = 42;
	t->end_ns = T0 + MS;
	cJSON_AddStringToObject(s->attrs, "gen_ai.request.model", "m");
	cJSON_AddBoolToObject(s->attrs, "xperf.stream", 1);
	tt_ex_set(&s->ex, TT_EX_RESPONSE_BYTES, 9007199254740992.0);
	tt_ex_set(&s->ex, TT_EX_INPUT_TOKENS, 12);
	CHECK(tt_ex_set_tokens(&s->ex, &tok, 1) == 0 && tt_turn_categorize(t) == 0, "typed");
	text = tt_turn_text(t);
	CHECK(text && strstr(text, want), "typed facts in order:\n%s", text ? text : "");
	back = text ? tt_turn_load_buffer("<typed>", text, strlen(text), NULL, NULL, &nerr) : NULL;
	CHECK(back && nerr == 0 && back->spans[0].ex.ntokens == 1, "read back");
	if (back)
		again = tt_turn_text(back);
	CHECK(again && !strcmp(again, text), "a turn read back is written as it was");
	free(again);
	free(text);
	tt_turn_free(back);
	tt_turn_free(t);
}

/*
 * tt_exchange_take types a writer's attributes given in any order; the writer
 * puts them in tt_exchange_order, the others after them (a literal above 2^53
 * stays an attribute, exact; the TTFT in seconds follows from the typed ns).
 */
static void check_take(void)
{
	static const char want[] = "{\"gen_ai.request.model\":\"m\","
		"\"gen_ai.usage.output_tokens\":5,\"gen_ai.response.finish_reasons\":[\"stop\"],"
		"\"gen_ai.server.time_to_first_token\":2,\"xperf.ttft_ns\":2000000000,"
		"\"xperf.stream\":true,\"http.response.body.size\":9007199254740993,"
		"\"tool.name\":\"x\",\"custom\":1}";
	struct tt_turn *t = tt_turn_new("core-test", 1, "sdk", "sdk");
	struct tt_span *s = tt_span_add(t, 0, "llm_inference", T0, T0 + MS, 7);
	cJSON *a = s->attrs, *doc, *at;
	char *text;

	cJSON_AddNumberToObject(a, "custom", 1);
	cJSON_AddStringToObject(a, "tool.name", "x");
	cJSON_AddItemToObject(a, "http.response.body.size", xp_json_exact_u64(T0));
	cJSON_AddBoolToObject(a, "xperf.stream", 1);
	cJSON_AddNumberToObject(a, "xperf.ttft_ns", 2e9);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(a, "gen_ai.response.finish_reasons"),
			     cJSON_CreateString("stop"));
	cJSON_AddStringToObject(a, "gen_ai.request.model", "m");
	cJSON_AddNumberToObject(a, "gen_ai.usage.output_tokens", 5);
	CHECK(tt_exchange_take(s) == 0 && cJSON_GetArraySize(a) == 3, "facts taken");
	CHECK(s->ex.str[TT_EX_REQUEST_MODEL] && s->ex.num[TT_EX_OUTPUT_TOKENS] == 5 &&
	      !s->ex.finish_length, "typed");
	doc = tt_turn_json(t);
	at = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "spans"), 0),
				 "attributes");
	text = at ? xp_json_print(at, 0) : NULL;
	CHECK(text && !strcmp(text, want), "canonical order:\n%s", text ? text : "");
	free(text);
	cJSON_Delete(doc);
	tt_turn_free(t);
}

static void keep_first(const struct sc_verror *e, void *ctx)
{
	struct sc_verror *first = ctx;

	if (first->line < 0)
		*first = *e;
}

/* The writer gives every span its attributes, {} when it has none; the file may leave them out. */
static void drop_empty_attributes(cJSON *doc)
{
	cJSON *s;

	cJSON_ArrayForEach(s, cJSON_GetObjectItem(doc, "spans"))
		if (!cJSON_GetArraySize(cJSON_GetObjectItem(s, "attributes")))
			cJSON_DeleteItemFromObject(s, "attributes");
}

/*
 * Every field of the valid fixtures survives reading and writing: the document written from
 * the turn read is, as JSON, the file (attributes, counters, sched, marks, gpu, anchor, agent).
 */
static void check_fixtures(void)
{
	static const char *const files[] = { "schema/testdata/valid/llm_turn_full.json",
					     "schema/testdata/valid/minimal.json" };

	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		FILE *f = fopen(files[i], "rb");
		char buf[1 << 16];
		size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
		int nerr = 0;
		struct tt_turn *t = tt_turn_load(files[i], NULL, NULL, &nerr);
		char *text = t ? tt_turn_text(t) : NULL;
		cJSON *want = xp_json_parse(buf, n), *got = text ? xp_json_parse(text, strlen(text)) : NULL;

		CHECK(t && nerr == 0 && want, "%s: read (%d errors)", files[i], nerr);
		drop_empty_attributes(got);
		CHECK(got && cJSON_Compare(want, got, 1), "%s: written back differs:\n%s", files[i],
		      text ? text : "");
		cJSON_Delete(want);
		cJSON_Delete(got);
		free(text);
		tt_turn_free(t);
		if (f)
			fclose(f);
	}
}

/* The reader refuses with the validator's position and pointer. */
static void check_refusal(void)
{
	static const char bad[] =
		"{\"schema_version\":\"1.0\",\"session_id\":\"s\",\"turn_index\":1,"
		"\"complete\":true,\"source\":\"sdk\",\"clock\":\"CLOCK_MONOTONIC\",\"start_ns\":5,"
		"\"end_ns\":9,\"agent\":{\"name\":\"a\",\"pid\":1},"
		"\"spans\":[{\"id\":1,\"parent\":3,\"stage\":\"decode\","
		"\"domain\":\"intelligent\",\"category\":\"processing\","
		"\"start_ns\":5,\"end_ns\":6}],\"fused_marks\":[],\"waste_marks\":[],"
		"\"data_quality\":{\"tier\":\"sdk\",\"dropped_events\":0,"
		"\"truncated_payloads\":0,\"warnings\":[]}}";
	struct sc_verror first = { .line = -1 };
	int nerr = 0;

	CHECK(tt_turn_load_buffer("bad", bad, strlen(bad), keep_first, &first, &nerr) == NULL &&
	      nerr > 0, "unknown parent refused");
	CHECK(!strcmp(first.pointer, "/spans/0/parent") && first.line == 1 &&
	      strstr(first.msg, "parent 3 is not a span"), "pointer and position: %d:%d %s %s",
	      first.line, first.col, first.pointer, first.msg);
}

int main(void)
{
	struct tt_turn *t = sample();

	CHECK(th_counter_name_count <= TT_COUNTERS_MAX, "TT_COUNTERS_MAX too small");
	check_rules(t);
	check_gaps();
	check_round_trip(t);
	check_typed_write();
	check_take();
	check_fixtures();
	check_refusal();
	check_failed();
	tt_turn_free(t);
	return test_failures != 0;
}
