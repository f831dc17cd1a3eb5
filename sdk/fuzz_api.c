/* SPDX-License-Identifier: MIT */
/*
 * fuzz_api.c - libFuzzer target over the whole public API: the input is a
 * program of calls (any order, any handle, stage, kind, key, type and value,
 * NULLs and bad lengths included). The SDK must never crash, leak or touch
 * memory it does not own (ASan/UBSan), must answer every call with 0, a
 * handle or an XP_E* code, and every file it writes must pass the schema
 * validator (an invalid file aborts the run).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/validate.h"
#include "sdk/xperf.h"

struct prog {
	const uint8_t *p;
	size_t n;
};

static uint8_t next(struct prog *g)
{
	if (!g->n)
		return 0;
	g->n--;
	return *g->p++;
}

static const char *pick(struct prog *g, const char *const *list, size_t n)
{
	return list[next(g) % n];
}

#define PICK(g, list) pick(g, list, sizeof(list) / sizeof(list[0]))

static const char *const stages[] = {
	"prompt_assembly", "tool_call", "llm_inference", "prompt_transfer", "queue_wait",
	"my_custom", NULL, "", "a b", "..", "x/y", "waiting",
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
};
static const char *const kinds[] = {
	"ttft", "streaming_gap", "failed_tool_call", "retry", "context_overflow", "bogus", NULL,
};
static const char *const keys[] = {
	"system", "input_tokens", "finish_reason", "finish_reasons", "ttft_ns", "api_key",
	"prompt", "tool_name", "exit_code", "x", "gen_ai.usage.output_tokens", "", NULL,
	"token_times_ns", "temperature",
};
static const char *const strs[] = { "stop", "", "anthropic", "\xff\xfe bad utf-8", NULL };

static void make_attr(struct prog *g, struct xperf_attr *a, const char **sv, int64_t *iv)
{
	a->key = PICK(g, keys);
	a->type = (enum xperf_attr_type)(next(g) % 7); /* 6: out of range */
	switch (a->type) {
	case XP_ATTR_STR:
		a->u.s = PICK(g, strs);
		break;
	case XP_ATTR_DOUBLE:
		a->u.d = (double)(int8_t)next(g) / (next(g) | 1);
		break;
	case XP_ATTR_STR_ARRAY:
		for (int i = 0; i < 4; i++)
			sv[i] = PICK(g, strs);
		a->u.strs.v = next(g) & 1 ? sv : NULL;
		a->u.strs.n = next(g) % 5;
		break;
	case XP_ATTR_INT_ARRAY:
		for (int i = 0; i < 4; i++)
			iv[i] = (int8_t)next(g);
		a->u.ints.v = next(g) & 1 ? iv : NULL;
		a->u.ints.n = next(g) % 5;
		break;
	default:
		a->u.i = (int64_t)(int8_t)next(g) * ((int64_t)1 << (next(g) % 40));
	}
}

static void check_rc(int rc)
{
	if (rc < XP_ENOTLLM) /* the lowest documented code */
		abort();
}

static void print_error(const struct sc_verror *e, void *ctx)
{
	char line[1024];

	(void)ctx;
	fprintf(stderr, "fuzz_api: invalid trace: %s\n", sc_verror_format(e, line, sizeof(line)));
}

/* Every turn file written is validated, then removed (listed, not probed by name:
 * 255 failed opens per run held the fuzzer to ~150 execs/s). */
static void validate_session(void)
{
	char dir[4096], path[4400];
	struct dirent *de;
	DIR *d;

	if (xperf_session_dir(dir, sizeof(dir)) < 0 || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (strncmp(de->d_name, "turn_", 5) || n < 10 || strcmp(de->d_name + n - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (sc_validate_file(path, print_error, NULL))
			abort();
		remove(path);
	}
	closedir(d);
}

static void step(struct prog *g, int *turn)
{
	struct xperf_attr a[4];
	const char *sv[4][4];
	int64_t iv[4][4];
	size_t n = next(g) % 5, na = n > 4 ? 4 : n;
	int op = next(g) % 13, h = next(g) % 4 == 0 ? (int8_t)next(g) : *turn, id = next(g) % 8;

	for (size_t i = 0; i < na; i++)
		make_attr(g, &a[i], sv[i], iv[i]);
	switch (op) {
	case 0:
		*turn = xperf_start_turn();
		check_rc(*turn);
		break;
	case 1:
		check_rc(xperf_end_turn(h));
		validate_session();
		break;
	case 2:
		check_rc(xperf_enter(h, PICK(g, stages), next(g) & 1 ? "bash" : NULL));
		break;
	case 3:
		check_rc(xperf_leave(h, id));
		break;
	case 4:
		check_rc(xperf_enter_llm(h, next(g) & 1 ? NULL : PICK(g, stages), n ? a : NULL, n));
		break;
	case 5:
		check_rc(xperf_leave_llm(h, id, a, na));
		break;
	case 6:
		check_rc(xperf_span_set(h, id, a, na));
		break;
	case 7:
		check_rc(xperf_mark_fused(h, PICK(g, kinds), a, na));
		break;
	case 8:
		check_rc(xperf_mark_waste(h, PICK(g, kinds), a, na));
		break;
	case 9:
		check_rc(xperf_llm_token(h, id));
		break;
	case 10: {
		struct xperf_span_opts o = { .stage = PICK(g, stages), .llm = next(g) & 1,
					     .detached = next(g) & 1, .parent = next(g) % 6,
					     .attrs = a, .nattrs = na };

		check_rc(xperf_enter_ex(h, &o));
		break;
	}
	default:
		check_rc(xperf_stats(next(g) & 1 ? NULL : &(struct xperf_stats){ 0 }));
	}
}

static char base[] = "/dev/shm/xperf-fuzz-api.XXXXXX";

static void remove_base(void)
{
	char dir[sizeof(base) + 8];

	snprintf(dir, sizeof(dir), "%s/fuzz", base);
	remove(dir);
	remove(base);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prog g = { data, size };
	struct xperf_options o = { .trace_dir = base, .session_id = "fuzz",
				   .flags = XPERF_NO_COUNTERS };
	int turn = 0;

	/* A directory of this run only: files are validated, then removed. */
	if (base[sizeof(base) - 2] == 'X') {
		if (!mkdtemp(base))
			abort();
		atexit(remove_base);
	}

	if (xperf_init(&(struct xperf_agent_info){ "fuzz", NULL }, &o))
		abort();
	while (g.n)
		step(&g, &turn);
	check_rc(xperf_shutdown());
	if (xperf_init(&(struct xperf_agent_info){ "fuzz", NULL }, &o))
		abort();
	validate_session();
	xperf_shutdown();
	return 0;
}
