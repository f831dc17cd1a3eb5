/* SPDX-License-Identifier: MIT */
/*
 * stream_test.c - a streamed answer with a known shape: the first token
 * 20 ms after the request, tokens every 2 ms, one 300 ms stall, more tokens.
 * The file must carry every token time, the time to first token (attribute
 * and fused ttft mark), a streaming_gap mark at the end of the stall with
 * gap_ns >= 300 ms (and no gap mark below the theory's 50 ms floor: a loaded
 * machine may stretch a 2 ms sleep into a real gap), and the misuses of
 * xperf_llm_token must be refused with their codes.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sdk/testutil.h"
#include "sdk/xperf.h"
#include "theory/theory.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* 6 tokens 2 ms apart, a 300 ms stall, 3 more. */
static int stream(int turn)
{
	int llm = xperf_enter_llm(turn, NULL, NULL, 0);

	sleep_ms(20);
	for (int i = 0; i < 9; i++) {
		sleep_ms(i == 6 ? 300 : 2);
		CHECK(xperf_llm_token(turn, llm) == 0);
	}
	return llm;
}

static void check(const cJSON *doc, int llm)
{
	const cJSON *span = tu_span(doc, "llm_inference");
	const cJSON *a = cJSON_GetObjectItem(span, "attributes");
	const cJSON *times = cJSON_GetObjectItem(a, "xperf.token_times_ns");
	const cJSON *m, *ttft = NULL, *stall = NULL;
	int64_t first = tu_int(cJSON_GetArrayItem(times, 0), NULL), ttft_ns;
	int64_t stall_end = tu_int(cJSON_GetArrayItem(times, 6), NULL);

	CHECK(cJSON_GetArraySize(times) == 9);
	ttft_ns = tu_int(a, "xperf.ttft_ns");
	CHECK(ttft_ns == first - tu_int(span, "start_ns"));
	CHECK(ttft_ns >= 20000000);
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(a, "xperf.stream")));
	CHECK(cJSON_GetObjectItem(a, "gen_ai.server.time_to_first_token")->valuedouble * 1e9 >
	      (double)ttft_ns - 1000);
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(doc, "fused_marks")) {
		const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(m, "kind"));

		CHECK(tu_int(m, "span") == llm);
		if (strcmp(kind, "ttft") == 0)
			ttft = m;
		if (strcmp(kind, "streaming_gap") != 0)
			continue;
		CHECK(tu_int(cJSON_GetObjectItem(m, "attributes"), "gap_ns") >
		      (int64_t)(th_rules.streaming_gap_min_ms * 1e6));
		if (tu_int(m, "t_ns") == stall_end)
			stall = m;
	}
	CHECK(ttft && tu_int(ttft, "t_ns") == first);
	CHECK(ttft && tu_int(cJSON_GetObjectItem(ttft, "attributes"), "ttft_ns") == ttft_ns);
	CHECK(stall && tu_int(cJSON_GetObjectItem(stall, "attributes"), "gap_ns") >= 300000000);
}

int main(void)
{
	char base[PATH_MAX], path[PATH_MAX];
	int turn, llm, plain;
	cJSON *doc;

	tu_tmpdir(base, sizeof(base), "stream");
	CHECK(xperf_llm_token(1, 1) == XP_ENOINIT);
	CHECK(xperf_init(&(struct xperf_agent_info){ "stream", NULL },
			 &(struct xperf_options){ .trace_dir = base }) == 0);
	turn = xperf_start_turn();
	plain = xperf_enter(turn, "response_parse", NULL);
	CHECK(xperf_llm_token(turn, plain) == XP_ENOTLLM);
	CHECK(xperf_leave(turn, plain) == 0);
	CHECK(xperf_llm_token(turn, 99) == XP_ENOSPAN);
	llm = stream(turn);
	CHECK(xperf_leave_llm(turn, llm, NULL, 0) == 0);
	CHECK(xperf_llm_token(turn, llm) == XP_ECLOSED);
	CHECK(xperf_end_turn(turn) == 0);
	tu_turn_path(path, sizeof(path), turn);
	doc = tu_load(path);
	check(doc, llm);
	cJSON_Delete(doc);
	CHECK(xperf_shutdown() == 0);
	return tu_done("stream_test");
}
