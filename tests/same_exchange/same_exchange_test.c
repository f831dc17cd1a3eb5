/* SPDX-License-Identifier: MIT */
/*
 * same_exchange_test.c - the SDK and the turn assembler fill the core's typed
 * exchange and the one writer writes their spans' attributes byte for byte
 * alike: one model call recorded through the SDK (its caller's attributes in
 * reverse order, short keys and OpenTelemetry names mixed) and assembled from
 * an exchange (assemble/llm_span.c) with the same facts; then every span of
 * the assembler's fixtures (model calls, tool calls, subprocesses, the
 * ciphertext tier) given to the SDK as its caller's attributes in reverse order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "assemble/doc.h"
#include "assemble/fixture.h"
#include "assemble/session.h"
#include "assemble/llm_span.h"
#include "core/write.h"
#include "lib/json_int.h"
#include "lib/test_check.h"
#include "sdk/xperf.h"

#define MS 1000000ll

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* The first span's attributes of a TurnTrace document, compact. */
static char *first_attrs(cJSON *doc)
{
	cJSON *span = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "spans"), 0);
	cJSON *at = cJSON_GetObjectItem(span, "attributes");

	return at ? xp_json_print(at, 0) : NULL;
}

/* The SDK's file of one model call streaming tokens at tok[0..1]. */
static char *sdk_attrs(int64_t *tok)
{
	const char *none[] = { NULL };
	char dir[] = "/tmp/same_exchangeXXXXXX", path[512], *text, *at = NULL;
	struct xperf_options o = { .session_id = "same", .flags = XPERF_NO_COUNTERS };
	int turn, span;
	size_t len;
	cJSON *doc;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	o.trace_dir = dir;
	CHECK(xperf_init(&(struct xperf_agent_info){ "same", NULL }, &o) == 0, "init");
	turn = xperf_start_turn();
	span = xperf_enter_llm(turn, NULL, NULL, 0);
	tok[0] = now_ns();
	tok[1] = tok[0] + 1;
	struct xperf_attr a[] = {
		{ .key = "token_times_ns", .type = XP_ATTR_INT_ARRAY, .u.ints = { tok, 2 } },
		{ .key = "xperf.tool_calls", .type = XP_ATTR_STR_ARRAY, .u.strs = { none, 0 } },
		XP_INT("response_size", 5678),
		XP_INT("http.request.body.size", 1234),
		XP_STR("url.path", "/v1/messages"),
		XP_STR("server.address", "api.anthropic.com"),
		XP_BOOL("stream", 1),
		XP_INT("status_code", 200),
		XP_INT("ttft_ns", 5 * MS),
		XP_STR("finish_reason", "max_tokens"),
		XP_INT("gen_ai.usage.cache_creation.input_tokens", 10),
		XP_INT("cache_read_tokens", 20),
		XP_INT("output_tokens", 80),
		XP_INT("input_tokens", 130),
		XP_STR("response_model", "claude-x-1"),
		XP_STR("request_model", "claude-x"),
		XP_STR("system", "anthropic"),
	};
	while (now_ns() <= tok[1])
		;
	CHECK(xperf_leave_llm(turn, span, a, XP_NATTR(a)) == 0, "leave");
	CHECK(xperf_end_turn(turn) == 0, "end turn");
	CHECK(xperf_session_dir(path, sizeof(path)) > 0, "session dir");
	strcat(path, "/turn_001.json");
	text = test_slurp(path, &len);
	doc = xp_json_parse(text, len);
	CHECK(doc != NULL, "%s parses", path);
	if (doc)
		at = first_attrs(doc);
	cJSON_Delete(doc);
	free(text);
	unlink(path);
	xperf_session_dir(path, sizeof(path));
	rmdir(path);
	rmdir(dir);
	xperf_shutdown();
	return at;
}

/* The assembler's span of the same call (tokens at tok[0..1], TTFT 5 ms). */
static char *assembled_attrs(const int64_t *tok)
{
	uint64_t times[2] = { (uint64_t)tok[0], (uint64_t)tok[1] };
	struct xt_exchange e = {
		.tid = 7, .req_start_ns = times[0] - 6 * MS, .req_end_ns = times[0] - 5 * MS,
		.resp_start_ns = times[0], .resp_end_ns = times[1] + MS, .req_bytes = 1234,
		.resp_bytes = 5678, .answered = 1, .host = "api.anthropic.com",
		.path = "/v1/messages",
		.call = { .api = XP_API_ANTHROPIC, .stream = 1, .status = 200,
			  .req_model = "claude-x", .resp_model = "claude-x-1", .input_tokens = 100,
			  .output_tokens = 80, .cache_read_tokens = 20, .cache_write_tokens = 10,
			  .reasoning_tokens = -1, .finish_reason = "max_tokens", .token_ns = times,
			  .n_tokens = 2 },
	};
	struct xt_agent_info agent = { .name = "same", .pid = 1 };
	struct tt_turn *d = xt_doc_new("same", 1, 1, e.req_start_ns, e.resp_end_ns, &agent,
				       "plaintext", NULL);
	struct xt_sched *sched = xt_sched_new(0);
	cJSON *doc;
	char *at;

	CHECK(d && sched && xt_llm_span(d, &e, sched) == 1, "assembled");
	CHECK(d && !strcmp(tt_ex_model(&d->spans[0].ex), "claude-x-1") &&
	      d->spans[0].ex.finish_length, "typed: the model, a cut answer");
	doc = tt_turn_json(d);
	at = doc ? first_attrs(doc) : NULL;
	cJSON_Delete(doc);
	tt_turn_free(d);
	xt_sched_free(sched);
	return at;
}

/* at's members as SDK attributes, last first; strings and arrays point into at. */
static size_t to_attrs(const cJSON *at, struct xperf_attr *out, size_t cap)
{
	const cJSON *m[64], *e;
	size_t n = 0, k = 0;

	cJSON_ArrayForEach(e, at)
		if (n < sizeof(m) / sizeof(*m))
			m[n++] = e;
	CHECK(n < sizeof(m) / sizeof(*m) && n <= cap, "%zu attributes", n);
	while (n-- && k < cap) {
		struct xperf_attr *a = &out[k++];
		int64_t i;

		a->key = m[n]->string;
		if (cJSON_IsString(m[n])) {
			*a = XP_STR(a->key, m[n]->valuestring);
		} else if (cJSON_IsBool(m[n])) {
			*a = XP_BOOL(a->key, cJSON_IsTrue(m[n]));
		} else if (cJSON_IsNumber(m[n])) {
			*a = xp_json_get_i64(m[n], &i) || (double)i != m[n]->valuedouble ?
				     XP_DBL(a->key, m[n]->valuedouble) : XP_INT(a->key, i);
		} else { /* the fixtures' arrays are of strings */
			const char **v = calloc((size_t)cJSON_GetArraySize(m[n]) + 1, sizeof(*v));
			size_t nv = 0;

			cJSON_ArrayForEach(e, m[n])
				v[nv++] = e->valuestring;
			a->type = XP_ATTR_STR_ARRAY;
			a->u.strs.v = v;
			a->u.strs.n = nv;
		}
	}
	return k;
}

static void free_attrs(struct xperf_attr *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].type == XP_ATTR_STR_ARRAY)
			free((void *)a[i].u.strs.v);
}

static cJSON *load(const char *path)
{
	size_t len;
	char *text = test_slurp(path, &len);
	cJSON *doc = xp_json_parse(text, len);

	free(text);
	return doc;
}

/*
 * The SDK's turn of asm's spans: each one's stage, its attributes given last
 * first. Returns how many spans were written alike. Token times stay out:
 * the SDK keeps only those inside its own span's clock.
 */
static int same_turn(cJSON *asm_turn)
{
	struct xperf_attr a[64];
	cJSON *spans = cJSON_GetObjectItem(asm_turn, "spans"), *sp, *doc;
	int turn = xperf_start_turn(), alike = 0, k = 0;
	char path[512];

	cJSON_ArrayForEach(sp, spans) {
		cJSON *at = cJSON_GetObjectItem(sp, "attributes");
		const char *stage = cJSON_GetStringValue(cJSON_GetObjectItem(sp, "stage"));
		int id = xperf_enter(turn, stage, NULL);
		size_t n;

		cJSON_DeleteItemFromObject(at, "xperf.token_times_ns");
		n = to_attrs(at, a, sizeof(a) / sizeof(*a));
		CHECK(xperf_span_set(turn, id, a, n) == 0 && xperf_leave(turn, id) == 0, "%s", stage);
		free_attrs(a, n);
	}
	CHECK(xperf_end_turn(turn) == 0, "end turn");
	xperf_session_dir(path, sizeof(path));
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/turn_%03d.json", turn);
	doc = load(path);
	unlink(path);
	cJSON_ArrayForEach(sp, cJSON_GetObjectItem(doc, "spans")) {
		char *mine = xp_json_print(cJSON_GetObjectItem(sp, "attributes"), 0);
		char *theirs = xp_json_print(
			cJSON_GetObjectItem(cJSON_GetArrayItem(spans, k++), "attributes"), 0);

		CHECK(mine && theirs && !strcmp(mine, theirs), "span %d:\nsdk:       %s\n"
		      "assembler: %s", k, mine ? mine : "", theirs ? theirs : "");
		alike += mine && theirs && !strcmp(mine, theirs);
		free(mine);
		free(theirs);
	}
	cJSON_Delete(doc);
	return alike;
}

static int replayed(void *ctx, const struct xt_event *ev)
{
	return xt_session_event(ctx, ev);
}

/* Every span of every turn the assembler writes from the fixture, through the SDK. */
static int same_fixture(const char *fixture, const char *tmp)
{
	struct xt_config cfg = { .out_dir = tmp, .session_id = "asm", .no_clock_anchor = 1 };
	struct xt_session *s = xt_session_new(&cfg);
	char path[512];
	int alike = 0;

	CHECK(s && !xt_fixture_read(fixture, replayed, s) && !xt_session_finish(s, UINT64_MAX / 2, 1),
	      "replay %s", fixture);
	for (int i = 1; s; i++) {
		snprintf(path, sizeof(path), "%s/turn_%03d.json", xt_session_stats(s).dir, i);
		cJSON *doc = access(path, F_OK) ? NULL : load(path);

		if (!doc)
			break;
		alike += same_turn(doc);
		cJSON_Delete(doc);
		unlink(path);
	}
	if (s)
		rmdir(xt_session_stats(s).dir);
	xt_session_free(s);
	return alike;
}

int main(void)
{
	static const char *const fixtures[] = {
		"assemble/testdata/demo_plain.jsonl", "assemble/testdata/demo_both.jsonl",
		"assemble/testdata/demo_cipher.jsonl", "assemble/testdata/concurrent.jsonl",
		"assemble/testdata/fidelity.jsonl",
	};
	char tmp[] = "/tmp/same_fixtureXXXXXX", dir[512];
	struct xperf_options o = { .trace_dir = tmp, .session_id = "sdk",
				   .flags = XPERF_NO_COUNTERS };
	int64_t tok[2];
	char *sdk = sdk_attrs(tok), *asm_ = assembled_attrs(tok);
	int alike = 0;

	CHECK(sdk && asm_ && !strcmp(sdk, asm_), "the same bytes:\nsdk:       %s\nassembler: %s",
	      sdk ? sdk : "", asm_ ? asm_ : "");
	CHECK(sdk && strstr(sdk, "\"gen_ai.provider.name\":\"anthropic\"") == sdk + 1,
	      "the exchange's order, not the caller's");
	free(sdk);
	free(asm_);

	CHECK(mkdtemp(tmp) != NULL, "mkdtemp");
	CHECK(xperf_init(&(struct xperf_agent_info){ "same", NULL }, &o) == 0, "init");
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(*fixtures); i++)
		alike += same_fixture(fixtures[i], tmp);
	CHECK(alike > 100, "%d spans written alike", alike);
	xperf_session_dir(dir, sizeof(dir));
	rmdir(dir);
	rmdir(tmp);
	xperf_shutdown();
	return test_failures != 0;
}
