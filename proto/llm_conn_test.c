/* SPDX-License-Identifier: MIT */
/*
 * llm_conn_test.c - LLM exchanges from recorded plaintext transcripts of each
 * supported API, replayed whole, byte by byte and in odd pieces: the results
 * (timings included) must not depend on the split.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/test_check.h"
#include "proto/split_feed.h"

struct got {
	struct pr_llm_exchange ex; /* copy; its pointers are not to be followed */
	uint64_t tok[16];
	char text[64], req[64]; /* payload text, when captured */
};

static struct got got[8];
static int n_got;

static void on_ex(void *ctx, struct pr_llm_exchange *ex)
{
	(void)ctx;
	if (n_got >= 8)
		return;
	got[n_got].ex = *ex;
	for (size_t i = 0; i < ex->call.n_tokens && i < 16; i++)
		got[n_got].tok[i] = ex->call.token_ns[i];
	snprintf(got[n_got].text, 64, "%s", ex->call.text ? ex->call.text : "");
	snprintf(got[n_got].req, 64, "%s", ex->req_text ? ex->req_text : "");
	n_got++;
}

static const struct pr_llm_conn_cfg any_host;

static void replay(const struct pr_llm_conn_cfg *cfg, const struct pr_chunk *ch, size_t n,
		   size_t piece, uint64_t close_t)
{
	struct pr_llm_conn *c = pr_llm_conn_new(cfg);

	n_got = 0;
	memset(got, 0, sizeof(got));
	pr_feed_split(c, ch, n, piece);
	pr_take(c, on_ex, NULL);
	if (close_t)
		pr_llm_conn_close(c, close_t);
	pr_take(c, on_ex, NULL);
	pr_llm_conn_free(c);
}

#define ANTHROPIC_REQ                                                                          \
	"POST /v1/messages HTTP/1.1\r\nHost: api.anthropic.com\r\nx-api-key: sk-ant-secret\r\n" \
	"Content-Type: application/json\r\nContent-Length: 90\r\n\r\n"                          \
	"{\"model\":\"claude-x\",\"stream\":true,\"max_tokens\":64,\"tools\":[{\"name\":\"bash\"}],\"messages\":[]}"

static const struct pr_chunk anthropic_stream[] = {
	{ XP_DIR_REQUEST, ANTHROPIC_REQ, 0, 1000 },
	/* first token in the same read as the response head */
	{ XP_DIR_RESPONSE,
	  "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
	  "cf\r\nevent: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":"
	  "\"claude-x-1\",\"usage\":{\"input_tokens\":12,\"cache_read_input_tokens\":4}}}\n\n"
	  "event: content_block_delta\ndata: {\"type\":\"content_block_delta\"}\n\n\r\n",
	  0, 5000 },
	{ XP_DIR_RESPONSE,
	  "66\r\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\"}\n\n"
	  "event: content_block_delta\ndata: {}\n\n\r\n",
	  0, 6000 },
	{ XP_DIR_RESPONSE,
	  "90\r\nevent: message_delta\ndata: {\"delta\":{\"stop_reason\":\"end_turn\"},"
	  "\"usage\":{\"output_tokens\":3}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	  "\r\n0\r\n\r\n",
	  0, 7000 },
};

static void test_anthropic_stream(size_t piece)
{
	replay(&any_host, anthropic_stream, 4, piece, 0);
	CHECK(n_got == 1);
	struct pr_llm_call *c = &got[0].ex.call;

	CHECK(c->api == XP_API_ANTHROPIC && c->stream == 1 && c->status == 200);
	CHECK(!strcmp(c->req_model, "claude-x") && !strcmp(c->resp_model, "claude-x-1"));
	CHECK(c->input_tokens == 12 && c->output_tokens == 3 && c->cache_read_tokens == 4);
	CHECK(!strcmp(c->finish_reason, "end_turn"));
	CHECK(c->n_tokens == 3 && got[0].tok[0] == 5000 && got[0].tok[1] == 6000 &&
	      got[0].tok[2] == 6000);
	CHECK(got[0].ex.req_start_ns == 1000 && got[0].ex.req_end_ns == 1000);
	CHECK(got[0].ex.resp_start_ns == 5000 && got[0].ex.resp_end_ns == 7000);
	CHECK(!got[0].ex.aborted && !got[0].ex.truncated && got[0].ex.req_bytes == 90);
	CHECK(!strcmp(got[0].ex.host, "api.anthropic.com"));
}

static void test_anthropic_aborted(void)
{
	replay(&any_host, anthropic_stream, 3, 0, 6500);
	CHECK(n_got == 1 && got[0].ex.aborted && got[0].ex.resp_end_ns == 6500);
}

static const struct pr_chunk openai_stream[] = {
	{ XP_DIR_REQUEST, "GET /health HTTP/1.1\r\nHost: h\r\n\r\n", 0, 10 },
	{ XP_DIR_RESPONSE, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 0, 20 },
	{ XP_DIR_REQUEST,
	  "POST /v1/chat/completions HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer sk-x\r\n"
	  "Content-Length: 42\r\n\r\n{\"model\":\"gpt-y\",\"stream\":true,\"tools\":[]}",
	  0, 100 },
	{ XP_DIR_RESPONSE,
	  "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
	  "Connection: close\r\n\r\n"
	  "data: {\"model\":\"gpt-y-2\",\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n",
	  0, 200 },
	{ XP_DIR_RESPONSE,
	  "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"bash\","
	  "\"arguments\":\"\"}}]}}]}\n\ndata: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\""
	  ":{\"arguments\":\"{}\"}}]}}]}\n\n",
	  0, 300 },
	{ XP_DIR_RESPONSE,
	  "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
	  "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":7,"
	  "\"prompt_tokens_details\":{\"cached_tokens\":32}}}\n\ndata: [DONE]\n\n",
	  0, 400 },
};

static void test_openai_stream(size_t piece)
{
	replay(&any_host, openai_stream, 6, piece, 500);
	CHECK(n_got == 1);
	struct pr_llm_call *c = &got[0].ex.call;

	CHECK(c->api == XP_API_OPENAI_CHAT && c->stream && !strcmp(c->resp_model, "gpt-y-2"));
	CHECK(c->n_tools == 1 && !strcmp(c->tools[0].name, "bash"));
	CHECK(!strcmp(c->finish_reason, "tool_calls") && c->stream_done);
	CHECK(c->input_tokens == 50 && c->output_tokens == 7 && c->cache_read_tokens == 32);
	CHECK(c->n_tokens == 2 && got[0].tok[0] == 300);
	CHECK(!got[0].ex.aborted && got[0].ex.resp_end_ns == 500);
}

static const struct pr_chunk plain_and_429[] = {
	{ XP_DIR_REQUEST,
	  "POST /v1/messages HTTP/1.1\r\nHost: a\r\nContent-Length: 20\r\n\r\n{\"model\":\"claude-x\"}",
	  0, 1 },
	{ XP_DIR_RESPONSE,
	  "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nContent-Length: 60\r\n\r\n"
	  "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\"}}        ",
	  0, 2 },
	{ XP_DIR_REQUEST,
	  "POST /v1/messages HTTP/1.1\r\nHost: a\r\nContent-Length: 20\r\n\r\n{\"model\":\"claude-x\"}",
	  0, 3 },
	{ XP_DIR_RESPONSE,
	  "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 155\r\n\r\n"
	  "{\"model\":\"claude-x\",\"stop_reason\":\"max_tokens\",\"content\":[{\"type\":\"text\"},"
	  "{\"type\":\"tool_use\",\"name\":\"grep\"}],\"usage\":{\"input_tokens\":9,\"output_tokens\":64}}",
	  0, 4 },
};

static void test_plain_and_429(size_t piece)
{
	replay(&any_host, plain_and_429, 4, piece, 0);
	CHECK(n_got == 2);
	CHECK(got[0].ex.call.status == 429 && !strcmp(got[0].ex.retry_after, "3"));
	CHECK(!strcmp(got[0].ex.call.error_type, "rate_limit_error"));
	struct pr_llm_call *c = &got[1].ex.call;

	CHECK(c->status == 200 && !c->stream && c->n_tokens == 0);
	CHECK(!strcmp(c->finish_reason, "max_tokens"));
	CHECK(c->n_tools == 1 && !strcmp(c->tools[0].name, "grep"));
	CHECK(c->input_tokens == 9 && c->output_tokens == 64);
	CHECK(got[1].ex.resp_start_ns == 4 && got[1].ex.resp_end_ns == 4);
}

static const struct pr_chunk responses_and_ollama[] = {
	{ XP_DIR_REQUEST,
	  "POST /v1/responses HTTP/1.1\r\nHost: a\r\nContent-Length: 15\r\n\r\n{\"stream\":true}",
	  0, 1 },
	{ XP_DIR_RESPONSE,
	  "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 349\r\n\r\n"
	  "event: response.created\ndata: {\"response\":{\"model\":\"o-1\"}}\n\n"
	  "event: response.output_text.delta\ndata: {\"delta\":\"hi\"}\n\n"
	  "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":"
	  "\"completed\",\"output\":[{\"type\":\"function_call\",\"name\":\"ls\"}],\"usage\":{"
	  "\"input_tokens\":5,\"output_tokens\":6,\"input_tokens_details\":{\"cached_tokens\":1}}}}\n\n",
	  0, 2 },
	{ XP_DIR_REQUEST, "POST /api/chat HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}", 0, 3 },
	{ XP_DIR_RESPONSE,
	  "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n"
	  "2c\r\n{\"model\":\"llama\",\"message\":{\"content\":\"a\"}}\n\r\n",
	  0, 4 },
	{ XP_DIR_RESPONSE,
	  "61\r\n{\"message\":{\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\","
	  "\"prompt_eval_count\":8,\"eval_count\":2}\n\r\n0\r\n\r\n",
	  0, 5 },
};

/* Payload text only on opt-in: the answer's text and the request body. */
static void test_payloads(void)
{
	static const struct pr_llm_conn_cfg keep = { NULL, NULL, 1 };

	replay(&any_host, responses_and_ollama, 5, 0, 0);
	CHECK(n_got == 2 && !got[0].text[0] && !got[0].req[0] && !got[1].text[0]);
	replay(&keep, responses_and_ollama, 5, 0, 0);
	CHECK(n_got == 2 && !strcmp(got[0].text, "hi") && !strcmp(got[1].text, "a"));
	CHECK(!strcmp(got[0].req, "{\"stream\":true}"));
}

static void test_responses_and_ollama(size_t piece)
{
	replay(&any_host, responses_and_ollama, 5, piece, 0);
	CHECK(n_got == 2);
	struct pr_llm_call *r = &got[0].ex.call, *o = &got[1].ex.call;

	CHECK(r->api == XP_API_OPENAI_RESPONSES && r->n_tokens == 1 && r->stream_done);
	CHECK(!strcmp(r->resp_model, "o-1") && !strcmp(r->finish_reason, "completed"));
	CHECK(r->input_tokens == 5 && r->output_tokens == 6 && r->cache_read_tokens == 1);
	CHECK(r->n_tools == 1 && !strcmp(r->tools[0].name, "ls") && !got[0].ex.aborted);
	CHECK(o->api == XP_API_OLLAMA_CHAT && o->stream && o->n_tokens == 1 && got[1].tok[0] == 4);
	CHECK(o->input_tokens == 8 && o->output_tokens == 2 && !strcmp(o->finish_reason, "stop"));
	CHECK(!got[1].ex.aborted && !strcmp(o->resp_model, "llama"));
}

static void test_hosts_and_lost(void)
{
	static const char *const hosts[] = { "api.*.com", NULL };
	static const char *const extra[] = { "/llm=ollama-generate", NULL };
	const struct pr_llm_conn_cfg only = { NULL, hosts, 0 };
	const struct pr_llm_conn_cfg custom = { extra, NULL, 0 };
	const struct pr_chunk gen[] = {
		{ XP_DIR_REQUEST, "POST /llm HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 0, 1 },
		{ XP_DIR_RESPONSE, "HTTP/1.1 200 OK\r\nContent-Length: 43\r\n\r\n{\"response\":"
				   "\"x\",\"done\":true,\"eval_count\":5}",
		  0, 2 },
	};
	struct pr_llm_conn *c;

	replay(&only, anthropic_stream, 4, 0, 0);
	CHECK(n_got == 1);
	replay(&only, plain_and_429, 4, 0, 0);
	CHECK(n_got == 0); /* host "a" is not an LLM host */
	replay(&custom, gen, 2, 0, 0);
	CHECK(n_got == 1 && got[0].ex.call.api == XP_API_OLLAMA_GENERATE);
	CHECK(got[0].ex.call.output_tokens == 5);
	/* bytes lost inside a body: the exchange ends, flagged truncated */
	n_got = 0;
	c = pr_llm_conn_new(&any_host);
	pr_feed_split(c, plain_and_429, 3, 0);
	pr_take(c, on_ex, NULL);
	pr_llm_conn_feed(c, XP_DIR_RESPONSE, plain_and_429[3].data, 120, 4);
	pr_llm_conn_lost(c, XP_DIR_RESPONSE, strlen(plain_and_429[3].data) - 120, 5);
	pr_take(c, on_ex, NULL);
	CHECK(n_got == 2 && got[1].ex.truncated && got[1].ex.resp_end_ns == 5);
	CHECK(c->lost_bytes == strlen(plain_and_429[3].data) - 120);
	pr_llm_conn_free(c);
}

/*
 * Attached mid-stream: the tail of a request body and of its answer, then a
 * whole exchange. Picking up needs the request line within one write.
 */
static void test_resync(size_t piece)
{
	const struct pr_chunk ch[] = {
		{ XP_DIR_REQUEST, "\"stream\":true}", 0, 1 },
		{ XP_DIR_RESPONSE, "data: {}\n\n\r\n0\r\n\r\n", 0, 2 },
		anthropic_stream[0], anthropic_stream[1], anthropic_stream[2], anthropic_stream[3],
	};
	struct pr_llm_conn *c = pr_llm_conn_new(&any_host);

	n_got = 0;
	pr_feed_split(c, ch, 6, piece);
	pr_take(c, on_ex, NULL);
	CHECK(n_got == 1 && got[0].ex.call.n_tokens == 3 && c->resyncs == 1);
	pr_llm_conn_free(c);
}

int main(void)
{
	for (size_t i = 0; i < pr_piece_count; i++) {
		test_anthropic_stream(pr_piece_sizes[i]);
		test_openai_stream(pr_piece_sizes[i]);
		test_plain_and_429(pr_piece_sizes[i]);
		test_responses_and_ollama(pr_piece_sizes[i]);
	}
	test_resync(0);
	test_resync(1000);
	test_anthropic_aborted();
	test_payloads();
	test_hosts_and_lost();
	return test_failures != 0;
}
