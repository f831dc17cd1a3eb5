/* SPDX-License-Identifier: MIT */
/*
 * misuse_test.c - every misuse returns its documented XP_E* code, changes
 * nothing, and never crashes: calls before init, NULL and malformed
 * arguments, leave without enter, double leave, leaving out of order,
 * double end_turn, stale handles, unknown mark kinds, mistyped attributes.
 * The turn written afterwards is still valid and holds only what succeeded.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sdk/testutil.h"
#include "sdk/xperf.h"

static void before_init(void)
{
	struct xperf_stats st;
	char buf[64];

	CHECK(xperf_start_turn() == XP_ENOINIT);
	CHECK(xperf_end_turn(1) == XP_ENOINIT);
	CHECK(xperf_enter(1, "prompt_assembly", NULL) == XP_ENOINIT);
	CHECK(xperf_leave(1, 1) == XP_ENOINIT);
	CHECK(xperf_enter_llm(1, NULL, NULL, 0) == XP_ENOINIT);
	CHECK(xperf_leave_llm(1, 1, NULL, 0) == XP_ENOINIT);
	CHECK(xperf_span_set(1, 1, NULL, 0) == XP_ENOINIT);
	CHECK(xperf_mark_fused(1, "ttft", NULL, 0) == XP_ENOINIT);
	CHECK(xperf_mark_waste(1, "retry", NULL, 0) == XP_ENOINIT);
	CHECK(xperf_stats(&st) == XP_ENOINIT);
	CHECK(xperf_session_dir(buf, sizeof(buf)) == XP_ENOINIT);
	CHECK(xperf_shutdown() == XP_ENOINIT);
	CHECK(xperf_init(NULL, NULL) == XP_EINVAL);
	CHECK(xperf_init(&(struct xperf_agent_info){ NULL, NULL }, NULL) == XP_EINVAL);
	CHECK(xperf_init(&(struct xperf_agent_info){ "a", NULL },
			 &(struct xperf_options){ .session_id = "../escape" }) == XP_EINVAL);
	CHECK(strcmp(xperf_strerror(XP_ETHREAD),
		     "span left on another thread than it was entered on") == 0);
	CHECK(strcmp(xperf_strerror(-999), "unknown error") == 0);
	CHECK(strcmp(xperf_strerror(0), "success") == 0);
}

static void bad_spans(int turn)
{
	int a, b;

	CHECK(xperf_enter(turn, NULL, NULL) == XP_EINVAL);
	CHECK(xperf_enter(turn, "", NULL) == XP_EINVAL);
	CHECK(xperf_enter(turn, "has space", NULL) == XP_EINVAL);
	CHECK(xperf_enter(turn, "../../etc", NULL) == XP_EINVAL);
	CHECK(xperf_enter(turn + 100, "prompt_assembly", NULL) == XP_ENOTURN);
	CHECK(xperf_leave(turn, 1) == XP_ENOSPAN); /* leave without enter */
	CHECK(xperf_leave(turn, -3) == XP_ENOSPAN);
	a = xperf_enter(turn, "orchestration", NULL);
	b = xperf_enter(turn, "tool_call", "ls");
	CHECK(a == 1 && b == 2);
	CHECK(xperf_leave(turn, a) == XP_EORDER); /* b is still open inside a */
	CHECK(xperf_leave_llm(turn, b, NULL, 0) == XP_ENOTLLM);
	CHECK(xperf_leave(turn, b) == 0);
	CHECK(xperf_leave(turn, b) == XP_ECLOSED); /* double leave */
	CHECK(xperf_leave(turn, a) == 0);
	CHECK(xperf_span_set(turn, 99, NULL, 0) == XP_ENOSPAN);
}

static void bad_attributes_and_marks(int turn)
{
	struct xperf_attr mistyped[] = { XP_STR("input_tokens", "150") };
	struct xperf_attr nan[] = { XP_DBL("temperature", NAN) };
	struct xperf_attr nullstr[] = { XP_STR("x", NULL) };
	struct xperf_attr nokey[] = { XP_INT(NULL, 1) };
	struct xperf_attr badttft[] = { XP_STR("ttft_ns", "soon") };
	struct xperf_attr negative[] = { XP_INT("output_tokens", -1) };
	struct xperf_attr status[] = { XP_INT("status_code", 999) };
	struct xperf_attr negcount[] = { XP_INT("failed_calls", -2) };
	struct xperf_attr badkey[] = { XP_INT("bad\xffkey", 1) };
	int s;

	CHECK(xperf_enter_llm(turn, NULL, mistyped, 1) == XP_EINVAL);
	CHECK(xperf_enter_llm(turn, NULL, nan, 1) == XP_EINVAL);
	CHECK(xperf_enter_llm(turn, NULL, nullstr, 1) == XP_EINVAL);
	CHECK(xperf_enter_llm(turn, NULL, nokey, 1) == XP_EINVAL);
	CHECK(xperf_enter_llm(turn, NULL, NULL, 2) == XP_EINVAL);
	CHECK(xperf_enter_llm(turn, NULL, negative, 1) == XP_EINVAL); /* a count below 0 */
	CHECK(xperf_enter_llm(turn, NULL, status, 1) == XP_EINVAL);   /* not an HTTP status */
	CHECK(xperf_enter_llm(turn, NULL, badkey, 1) == XP_EINVAL);   /* key not UTF-8 */
	CHECK(xperf_mark_waste(turn, "retry", negcount, 1) == XP_EINVAL);
	s = xperf_enter_llm(turn, NULL, NULL, 0);
	CHECK(s == 3);
	CHECK(xperf_leave_llm(turn, s, mistyped, 1) == XP_EINVAL);
	CHECK(xperf_mark_fused(turn, NULL, NULL, 0) == XP_EINVAL);
	CHECK(xperf_mark_fused(turn, "warp_drive", NULL, 0) == XP_EKIND);
	CHECK(xperf_mark_fused(turn, "ttft", badttft, 1) == XP_EINVAL);
	CHECK(xperf_mark_waste(turn, "ttft", NULL, 0) == XP_EKIND);
	CHECK(xperf_mark_waste(turn, "retry", nokey, 1) == XP_EINVAL);
	CHECK(xperf_leave_llm(turn, s, NULL, 0) == 0); /* still open after the refusals */
}

/*
 * A span never left is closed at end_turn, with a warning and no CPU data;
 * a turn never ended is written by shutdown with complete=false.
 */
static void forgotten(int turn)
{
	char path[PATH_MAX];
	const cJSON *s;
	cJSON *doc;

	CHECK(xperf_start_turn() == turn);
	CHECK(xperf_enter(turn, "tool_call", "sleep") == 1);
	CHECK(xperf_end_turn(turn) == 0);
	tu_turn_path(path, sizeof(path), turn);
	doc = tu_load(path);
	s = tu_span(doc, "tool_call");
	CHECK(tu_has_warning(doc, "span 1 (tool_call) was not left"));
	CHECK(tu_int(s, "end_ns") == tu_int(doc, "end_ns"));
	CHECK(!cJSON_GetObjectItem(s, "sched") && !cJSON_GetObjectItem(s, "counters"));
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(doc, "complete")));
	cJSON_Delete(doc);
	CHECK(xperf_start_turn() == turn + 1);
	tu_turn_path(path, sizeof(path), turn + 1);
	CHECK(xperf_shutdown() == 0);
	doc = tu_load(path);
	CHECK(cJSON_IsFalse(cJSON_GetObjectItem(doc, "complete")));
	cJSON_Delete(doc);
}

int main(void)
{
	char base[PATH_MAX], path[PATH_MAX];
	struct xperf_agent_info agent = { "misuse", NULL };
	struct xperf_stats st;
	cJSON *doc;
	int turn;

	before_init();
	tu_tmpdir(base, sizeof(base), "misuse");
	CHECK(xperf_init(&agent, &(struct xperf_options){ .trace_dir = base }) == 0);
	CHECK(xperf_init(&agent, NULL) == XP_EALREADY);
	turn = xperf_start_turn();
	bad_spans(turn);
	bad_attributes_and_marks(turn);
	CHECK(xperf_stats(NULL) == XP_EINVAL);
	CHECK(xperf_session_dir(NULL, 10) == XP_EINVAL);
	CHECK(xperf_session_dir(path, 3) == XP_EINVAL);
	CHECK(xperf_end_turn(turn) == 0);
	CHECK(xperf_end_turn(turn) == XP_ENOTURN); /* double end_turn */
	CHECK(xperf_enter(turn, "prompt_assembly", NULL) == XP_ENOTURN);
	CHECK(xperf_stats(&st) == 0 && st.misuse == 32);
	tu_turn_path(path, sizeof(path), turn);
	doc = tu_load(path);
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "spans")) == 3);
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "fused_marks")) == 0);
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "waste_marks")) == 0);
	cJSON_Delete(doc);
	forgotten(turn + 1);
	CHECK(xperf_shutdown() == XP_ENOINIT);
	CHECK(xperf_start_turn() == XP_ENOINIT);
	return tu_done("misuse_test");
}
