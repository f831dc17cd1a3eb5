/* SPDX-License-Identifier: MIT */
/*
 * sdk_test.c - one turn of the seed's example, in C, checked field by field:
 * automatic attribution, OTel attribute mapping, marks, counters, nesting,
 * custom stages, privacy, file mode and atomicity, the trace directory from
 * the init option, from $XPERF_TRACE_DIR, and relative to the directory at
 * init; a forked child without the parent's session. Every file is validated.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/counters.h"
#include "theory/theory.h"
#include "sdk/testutil.h"
#include "sdk/xperf.h"

static const struct xperf_agent_info agent = { "claude-code", "claude-sonnet-4-6" };

/* The seed's example (../shared/seeds/xperf.md), call for call. */
static int seed_turn(void)
{
	int turn = xperf_start_turn(), s;
	char prompt[256];
	struct xperf_attr req[] = {
		XP_STR("system", "anthropic"),
		XP_STR("request_model", "claude-sonnet-4-6"),
		XP_INT("input_tokens", 150),
		XP_STR("api_key", "sk-never-written"),
		XP_STR("prompt", "text withheld without opt-in"),
	};
	struct xperf_attr resp[] = { XP_INT("output_tokens", 80), XP_STR("finish_reason", "stop") };
	struct xperf_attr ttft[] = { XP_INT("ttft_ns", 2500000000ll) }; /* > INT32_MAX */
	struct xperf_attr waste[] = { XP_INT("failed_calls", 1), XP_INT("retries", 2),
				      XP_STR("error", "exit status 2") };

	s = xperf_enter(turn, "prompt_assembly", NULL);
	snprintf(prompt, sizeof(prompt), "You are %s. User: list files", agent.name);
	CHECK(xperf_leave(turn, s) == 0);
	s = xperf_enter(turn, "prompt_transfer", NULL);
	CHECK(xperf_mark_fused(turn, "ttft", ttft, XP_NATTR(ttft)) == 0);
	CHECK(xperf_leave(turn, s) == 0);
	s = xperf_enter_llm(turn, NULL, req, XP_NATTR(req));
	CHECK(s > 0);
	CHECK(xperf_leave_llm(turn, s, resp, XP_NATTR(resp)) == 0);
	s = xperf_enter(turn, "response_parse", NULL);
	CHECK(xperf_leave(turn, s) == 0);
	s = xperf_enter(turn, "tool_call", "bash");
	CHECK(xperf_mark_waste(turn, "failed_tool_call", waste, XP_NATTR(waste)) == 0);
	CHECK(xperf_leave(turn, s) == 0);
	CHECK(xperf_end_turn(turn) == 0);
	return turn;
}

static void check_attribution(const cJSON *doc)
{
	static const struct {
		const char *stage, *domain, *category;
	} want[] = {
		{ "prompt_transfer", "fused", "supply" },
		{ "llm_inference", "intelligent", "processing" },
		{ "tool_call", "compute", "waste" },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const cJSON *s = tu_span(doc, want[i].stage);

		CHECK(s != NULL);
		CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(s, "domain")),
			     want[i].domain) == 0);
		CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(s, "category")),
			     want[i].category) == 0);
	}
	CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(tu_span(doc, "prompt_assembly"),
							       "domain")), "compute") == 0);
}

static void check_llm_attributes(const cJSON *doc)
{
	const cJSON *a = cJSON_GetObjectItem(tu_span(doc, "llm_inference"), "attributes");
	const cJSON *fr = cJSON_GetObjectItem(a, "gen_ai.response.finish_reasons");

	CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(a, "gen_ai.provider.name")),
		     "anthropic") == 0);
	CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(a, "gen_ai.request.model")),
		     "claude-sonnet-4-6") == 0);
	CHECK(tu_int(a, "gen_ai.usage.input_tokens") == 150);
	CHECK(tu_int(a, "gen_ai.usage.output_tokens") == 80);
	CHECK(cJSON_IsArray(fr) && cJSON_GetArraySize(fr) == 1 &&
	      strcmp(cJSON_GetArrayItem(fr, 0)->valuestring, "stop") == 0);
	/* Exactly these five: short keys renamed, the secret and the prompt withheld. */
	CHECK(cJSON_GetArraySize(a) == 5);
	CHECK(!cJSON_GetObjectItem(a, "system") && !cJSON_GetObjectItem(a, "api_key") &&
	      !cJSON_GetObjectItem(a, "prompt"));
	a = cJSON_GetObjectItem(tu_span(doc, "tool_call"), "attributes");
	CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(a, "tool.name")), "bash") == 0);
}

static void check_marks(const cJSON *doc)
{
	const cJSON *f = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "fused_marks"), 0);
	const cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "waste_marks"), 0);
	const cJSON *counts = cJSON_GetObjectItem(w, "counts");

	CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "fused_marks")) == 1);
	CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(f, "kind")), "ttft") == 0);
	CHECK(tu_int(cJSON_GetObjectItem(f, "attributes"), "ttft_ns") == 2500000000ll);
	CHECK(tu_int(f, "span") == tu_int(tu_span(doc, "prompt_transfer"), "id"));
	CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(w, "l3")),
		     "compute.waste.failed_tool_call") == 0);
	CHECK(tu_int(w, "span") == tu_int(tu_span(doc, "tool_call"), "id"));
	CHECK(tu_int(counts, "failed_calls") == 1 && tu_int(counts, "retries") == 2);
	CHECK(cJSON_GetArraySize(counts) == 2);
	CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(w, "attributes"),
								"error")), "exit status 2") == 0);
}

/* Every counter is either a value or an unavailable reason, never both, never neither. */
static void check_counters(const cJSON *span)
{
	const cJSON *c = cJSON_GetObjectItem(span, "counters");
	const cJSON *values = cJSON_GetObjectItem(c, "values");
	const cJSON *why = cJSON_GetObjectItem(c, "unavailable");

	for (int i = 0; i < XP_CTR_COUNT; i++) {
		const cJSON *v = cJSON_GetObjectItem(values, th_counter_name_table[i].name);
		const cJSON *r = cJSON_GetObjectItem(why, th_counter_name_table[i].name);

		CHECK((v != NULL) != (r != NULL));
		CHECK(!r || (cJSON_IsString(r) && r->valuestring[0]));
	}
	CHECK(cJSON_GetObjectItem(values, "task_clock_ns") != NULL); /* even when sandboxed */
	CHECK(tu_int(cJSON_GetObjectItem(span, "sched"), "on_cpu_ns") >= 0);
}

static void check_file(const char *path, int turn)
{
	char dir[PATH_MAX];
	struct stat st;
	cJSON *doc = tu_load(path);

	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	CHECK(xperf_session_dir(dir, sizeof(dir)) > 0);
	CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);
	CHECK(tu_count_entries(dir, ".tmp") == 0); /* the atomic write left nothing behind */
	CHECK(tu_int(doc, "turn_index") == turn);
	CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(
			     cJSON_GetObjectItem(doc, "data_quality"), "tier")), "sdk") == 0);
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "spans")) == 5);
	check_attribution(doc);
	check_llm_attributes(doc);
	check_marks(doc);
	check_counters(tu_span(doc, "prompt_assembly"));
	cJSON_Delete(doc);
}

/* Nested spans get their parent; a custom stage goes to compute with a warning. */
static void nesting_and_custom_stage(void)
{
	char path[PATH_MAX];
	int turn = xperf_start_turn();
	int outer = xperf_enter(turn, "orchestration", NULL);
	int mid = xperf_enter(turn, "my_planner", NULL);
	int inner = xperf_enter(turn, "tool_call", "grep");
	const cJSON *s;
	cJSON *doc;

	CHECK(outer == 1 && mid == 2 && inner == 3);
	CHECK(xperf_leave(turn, inner) == 0);
	CHECK(xperf_leave(turn, mid) == 0);
	CHECK(xperf_leave(turn, outer) == 0);
	CHECK(xperf_end_turn(turn) == 0);
	tu_turn_path(path, sizeof(path), turn);
	doc = tu_load(path);
	s = tu_span(doc, "my_planner");
	CHECK(tu_int(s, "parent") == outer);
	CHECK(tu_int(tu_span(doc, "tool_call"), "parent") == mid);
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(tu_span(doc, "orchestration"), "parent")));
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(s, "custom_stage")));
	CHECK(!cJSON_GetObjectItem(tu_span(doc, "tool_call"), "custom_stage"));
	CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(s, "domain")), "compute") == 0);
	CHECK(tu_has_warning(doc, "my_planner"));
	CHECK(tu_int(s, "start_ns") >= tu_int(tu_span(doc, "orchestration"), "start_ns"));
	CHECK(tu_int(s, "end_ns") <= tu_int(tu_span(doc, "orchestration"), "end_ns"));
	cJSON_Delete(doc);
}

/*
 * A tool's raw bytes that are not UTF-8 keep their valid parts with U+FFFD;
 * secrets in a command line are redacted; token times outside their span are
 * dropped with a warning, not written.
 */
static void dirty_values(void)
{
	char path[PATH_MAX];
	int turn = xperf_start_turn(), s = xperf_enter(turn, "tool_call", "cat");
	struct xperf_attr out[] = {
		XP_STR("output", "ok \xff\xc3("),
		XP_STR("command_line", "curl -H 'Authorization: Bearer abc.DEF-123' "
				       "'https://h/v1?api_key=S3CR3T&q=1' "
				       "--key sk-ant-api03-abcdefghijklmnopqrstuvwxyz ask-someone"),
	};
	static const int64_t times[] = { 1, 2 }; /* long before the span started */
	struct xperf_attr tt[] = { { .key = "token_times_ns", .type = XP_ATTR_INT_ARRAY,
				     .u.ints = { times, 2 } } };
	const cJSON *a;
	cJSON *doc;

	CHECK(xperf_span_set(turn, s, out, XP_NATTR(out)) == 0);
	CHECK(xperf_leave(turn, s) == 0);
	s = xperf_enter_llm(turn, NULL, NULL, 0);
	CHECK(xperf_leave_llm(turn, s, tt, 1) == 0);
	CHECK(xperf_end_turn(turn) == 0);
	tu_turn_path(path, sizeof(path), turn);
	doc = tu_load(path);
	a = cJSON_GetObjectItem(tu_span(doc, "tool_call"), "attributes");
	CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(a, "output")),
		     "ok \xef\xbf\xbd\xef\xbf\xbd(") == 0);
	CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(a, "process.command_line")),
		     "curl -H 'Authorization: Bearer [REDACTED]' "
		     "'https://h/v1?api_key=[REDACTED]&q=1' --key [REDACTED] ask-someone") == 0);
	CHECK(!cJSON_GetObjectItem(cJSON_GetObjectItem(tu_span(doc, "llm_inference"), "attributes"),
				   "xperf.token_times_ns"));
	CHECK(tu_has_warning(doc, "xperf.token_times_ns dropped"));
	cJSON_Delete(doc);
}

/* $XPERF_TRACE_DIR and $XPERF_SESSION_ID apply when init names neither. */
static void env_trace_dir(void)
{
	char base[PATH_MAX], want[PATH_MAX + 16], dir[PATH_MAX], path[PATH_MAX];
	cJSON *doc;
	int turn;

	tu_tmpdir(base, sizeof(base), "envdir");
	setenv("XPERF_TRACE_DIR", base, 1);
	setenv("XPERF_SESSION_ID", "env-session.1", 1);
	CHECK(xperf_init(&agent, NULL) == 0);
	snprintf(want, sizeof(want), "%s/env-session.1", base);
	CHECK(xperf_session_dir(dir, sizeof(dir)) > 0 && strcmp(dir, want) == 0);
	turn = xperf_start_turn();
	CHECK(turn == 1);
	CHECK(xperf_end_turn(turn) == 0);
	snprintf(path, sizeof(path), "%s/turn_001.json", want);
	doc = tu_load(path);
	CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "session_id")),
		     "env-session.1") == 0);
	cJSON_Delete(doc);
	CHECK(xperf_shutdown() == 0);
	unsetenv("XPERF_TRACE_DIR");
	unsetenv("XPERF_SESSION_ID");
}

/*
 * A forked child starts without a session: it cannot touch the parent's open
 * turn, and a session of its own writes into its own directory. The
 * parent's turn, open across the fork, is written once, by the parent.
 */
static void forked_child(const char *base)
{
	char dir[PATH_MAX], path[PATH_MAX + 32];
	int turn = xperf_start_turn(), s = xperf_enter(turn, "orchestration", NULL), status;
	pid_t pid = fork();

	if (pid == 0) {
		int ok = xperf_start_turn() == XP_ENOINIT && xperf_leave(turn, s) == XP_ENOINIT &&
			 xperf_init(&agent, &(struct xperf_options){ .trace_dir = base,
								     .session_id = "child" }) == 0 &&
			 xperf_end_turn(xperf_start_turn()) == 0;
		_exit(ok ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
	CHECK(xperf_leave(turn, s) == 0);
	CHECK(xperf_end_turn(turn) == 0);
	snprintf(path, sizeof(path), "%s/child/turn_001.json", base);
	cJSON_Delete(tu_load(path));
	CHECK(xperf_session_dir(dir, sizeof(dir)) > 0);
	CHECK(tu_count_entries(dir, "turn_") == turn); /* turns 1..turn, all the parent's */
}

/* A relative trace dir is resolved at init: changing directory later changes nothing. */
static void relative_dir(void)
{
	char base[PATH_MAX], want[PATH_MAX + 32], dir[PATH_MAX], old[PATH_MAX];

	tu_tmpdir(base, sizeof(base), "reldir");
	CHECK(getcwd(old, sizeof(old)) != NULL);
	CHECK(chdir(base) == 0);
	CHECK(xperf_init(&agent, &(struct xperf_options){ .trace_dir = "rel/t",
							  .session_id = "r" }) == 0);
	CHECK(chdir("/") == 0);
	CHECK(xperf_end_turn(xperf_start_turn()) == 0);
	snprintf(want, sizeof(want), "%s/rel/t/r", base);
	CHECK(xperf_session_dir(dir, sizeof(dir)) > 0 && strcmp(dir, want) == 0);
	snprintf(want, sizeof(want), "%s/rel/t/r/turn_001.json", base);
	cJSON_Delete(tu_load(want));
	CHECK(xperf_shutdown() == 0);
	CHECK(chdir(old) == 0);
}

int main(void)
{
	char base[PATH_MAX], path[PATH_MAX];
	struct xperf_options opts = { 0 };
	struct xperf_stats st;
	int turn;

	tu_tmpdir(base, sizeof(base), "traces");
	opts.trace_dir = base;
	setenv("XPERF_TRACE_DIR", "/nonexistent/the/option/wins", 1);
	CHECK(xperf_init(&agent, &opts) == 0);
	unsetenv("XPERF_TRACE_DIR");
	turn = seed_turn();
	CHECK(turn == 1);
	tu_turn_path(path, sizeof(path), turn);
	CHECK(strncmp(path, base, strlen(base)) == 0);
	check_file(path, turn);
	nesting_and_custom_stage();
	dirty_values();
	forked_child(base);
	CHECK(xperf_stats(&st) == 0 && st.turns_written == 4 && st.write_failures == 0);
	CHECK(st.misuse == 0 && st.dropped_events == 0);
	CHECK(xperf_shutdown() == 0);
	env_trace_dir();
	relative_dir();
	return tu_done("sdk_test");
}
