/* SPDX-License-Identifier: MIT */
/*
 * fidelity_test.c - what real agent CLIs do, replayed in both tiers
 * (testdata/fidelity.jsonl, made by gen_fidelity.py): a HEAD probe and a
 * token count are counted, not turns; the tool call the model asked for is matched through a wrapper
 * that re-execs itself before a cut `bash -c` to the process tree that ran
 * it, with the call id, exit code and the agent's tool result; the agent's
 * housekeeping processes are agent_subprocess spans and never waste; a second
 * agent process has turns of its own; a response head sent 300 ms before the
 * first token (keep-alive with a control record after it, fresh connection)
 * is not the first token in either tier; arguments are written on opt-in only. Without plaintext the
 * tool identity is unknown and no exit code is charged.
 */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assemble/fixture.h"
#include "assemble/session.h"
#include "lib/test_check.h"

#define MS 1000000.0

struct turn {
	cJSON *doc;
	int pid;
};

static int feed(void *ctx, const struct xt_event *ev)
{
	return xt_session_event(ctx, ev);
}

static cJSON *load(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[1 << 20];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return cJSON_Parse(buf);
}

/* Replays the fixture into dir; fills t (turn files in order), returns their count. */
static int replay(const char *dir, int ciphertext, int capture, struct turn *t, int max)
{
	struct xt_config cfg = { .out_dir = dir, .session_id = "fid", .ciphertext = ciphertext,
				 .no_clock_anchor = 1, .llm.capture_payloads = capture };
	struct xt_session *s = xt_session_new(&cfg);
	char pat[600];
	glob_t g;
	int n = 0;

	CHECK(s && xt_fixture_read("assemble/testdata/fidelity.jsonl", feed, s) == 0);
	CHECK(xt_session_finish(s, 99999999999ull, 1) == 0);
	xt_session_free(s);
	snprintf(pat, sizeof(pat), "%s/fid/turn_*.json", dir);
	if (glob(pat, 0, NULL, &g))
		return 0;
	for (size_t i = 0; i < g.gl_pathc && n < max; i++, n++) {
		t[n].doc = load(g.gl_pathv[i]);
		t[n].pid = cJSON_GetObjectItem(cJSON_GetObjectItem(t[n].doc, "agent"), "pid")->valueint;
	}
	globfree(&g);
	return n;
}

static const cJSON *attr(const cJSON *span, const char *k)
{
	return cJSON_GetObjectItem(cJSON_GetObjectItem(span, "attributes"), k);
}

static int count(const cJSON *doc, const char *stage)
{
	const cJSON *s;
	int n = 0;

	cJSON_ArrayForEach(s, cJSON_GetObjectItem(doc, "spans"))
		n += !strcmp(cJSON_GetObjectItem(s, "stage")->valuestring, stage);
	return n;
}

static const cJSON *first(const cJSON *doc, const char *stage)
{
	const cJSON *s;

	cJSON_ArrayForEach(s, cJSON_GetObjectItem(doc, "spans"))
		if (!strcmp(cJSON_GetObjectItem(s, "stage")->valuestring, stage))
			return s;
	return NULL;
}

static double ttft_ms(const cJSON *doc)
{
	const cJSON *v = attr(first(doc, "llm_inference"), "xperf.ttft_ns");

	return v ? v->valuedouble / MS : -1;
}

static const char *quality(const cJSON *doc, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "data_quality"), k));
}

static double dq_num(const cJSON *doc, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "data_quality"), k);

	return v ? v->valuedouble : -1;
}

/* No waste mark points at an agent_subprocess span. */
static int subprocess_charged(const cJSON *doc)
{
	const cJSON *m, *s;

	cJSON_ArrayForEach(m, cJSON_GetObjectItem(doc, "waste_marks"))
		cJSON_ArrayForEach(s, cJSON_GetObjectItem(doc, "spans"))
			if (cJSON_IsNumber(cJSON_GetObjectItem(m, "span")) &&
			    cJSON_GetObjectItem(m, "span")->valueint ==
				    cJSON_GetObjectItem(s, "id")->valueint &&
			    !strcmp(cJSON_GetObjectItem(s, "stage")->valuestring, "agent_subprocess"))
				return 1;
	return 0;
}

static void both_tiers(struct turn *t, int n)
{
	CHECK(n == 3); /* two model calls of agent 4100, one of agent 4200; probe and count none */
	CHECK(t[0].pid == 4100 && t[1].pid == 4200 && t[2].pid == 4100);
	CHECK(ttft_ms(t[0].doc) > 299 && ttft_ms(t[0].doc) < 301); /* not the head's 1 ms */
	CHECK(ttft_ms(t[2].doc) > 199 && ttft_ms(t[2].doc) < 201);
	CHECK(ttft_ms(t[1].doc) > 299 && ttft_ms(t[1].doc) < 301); /* fresh connection */
	CHECK(dq_num(t[0].doc, "non_llm_requests") == 2 && dq_num(t[2].doc, "non_llm_requests") == 0);
	for (int i = 0; i < n; i++)
		CHECK(!subprocess_charged(t[i].doc));
}

static void plaintext(struct turn *t)
{
	const cJSON *tool = first(t[0].doc, "tool_call");
	const cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItem(t[0].doc, "waste_marks"), 0);

	CHECK(count(t[0].doc, "tool_call") == 1 && count(t[0].doc, "agent_subprocess") == 2);
	CHECK(tool && !strcmp(cJSON_GetStringValue(attr(tool, "gen_ai.tool.name")), "bash") &&
	      !strcmp(cJSON_GetStringValue(attr(tool, "gen_ai.tool.call.id")), "toolu_1"));
	CHECK(tool && attr(tool, "process.exit.code")->valueint == 2 &&
	      cJSON_IsTrue(attr(tool, "xperf.tool.result.is_error")));
	CHECK(!attr(tool, "gen_ai.tool.call.arguments")); /* arguments only on opt-in */
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(t[0].doc, "waste_marks")) == 1 && m &&
	      !strcmp(cJSON_GetObjectItem(m, "kind")->valuestring, "failed_tool_call") &&
	      cJSON_GetObjectItem(m, "span")->valueint == cJSON_GetObjectItem(tool, "id")->valueint);
	CHECK(!strcmp(quality(t[0].doc, "tool_identity"), "model"));
	CHECK(!strcmp(cJSON_GetStringValue(attr(first(t[0].doc, "llm_inference"),
						 "gen_ai.conversation.id")), "sess-fid"));
}

static void ciphertext(struct turn *t, int n)
{
	CHECK(count(t[0].doc, "tool_call") == 0 && count(t[0].doc, "agent_subprocess") == 3);
	CHECK(!strcmp(quality(t[0].doc, "tool_identity"), "unknown"));
	for (int i = 0; i < n; i++)
		CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(t[i].doc, "waste_marks")) == 0);
	CHECK(!strcmp(cJSON_GetStringValue(attr(first(t[0].doc, "agent_subprocess"),
						 "xperf.tool.identity")), "unknown"));
}

int main(void)
{
	const char *tmp = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
	char dir[512];
	struct turn p[8], c[8];
	int np, nc;

	snprintf(dir, sizeof(dir), "%s/fid_payloads", tmp);
	np = replay(dir, 0, 1, p, 8); /* --capture-payloads: the arguments are written */
	CHECK(np == 3 && !strcmp(cJSON_GetStringValue(attr(first(p[0].doc, "tool_call"),
							    "gen_ai.tool.call.arguments")),
				 "{\"command\": \"ls /x\"}"));
	for (int i = 0; i < np; i++)
		cJSON_Delete(p[i].doc);
	snprintf(dir, sizeof(dir), "%s/fid_plain", tmp);
	np = replay(dir, 0, 0, p, 8);
	both_tiers(p, np);
	if (np == 3)
		plaintext(p);
	snprintf(dir, sizeof(dir), "%s/fid_cipher", tmp);
	nc = replay(dir, 1, 0, c, 8);
	both_tiers(c, nc);
	if (nc == 3)
		ciphertext(c, nc);
	for (int i = 0; i < np; i++)
		cJSON_Delete(p[i].doc);
	for (int i = 0; i < nc; i++)
		cJSON_Delete(c[i].doc);
	return test_failures != 0;
}
