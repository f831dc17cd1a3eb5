/* SPDX-License-Identifier: MIT */
/*
 * llm_tools_test.c - the model's tool calls (name, call id, arguments) in
 * every API, whole and streamed in any split; the tool results and the
 * conversation id of the next request; requests that are no model call.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/test_check.h"
#include "proto/split_feed.h"

static struct pr_llm_call got[4];
static int n_got;

static void on_ex(void *ctx, struct pr_llm_exchange *ex)
{
	(void)ctx;
	if (n_got < 4)
		pr_llm_call_move(&got[n_got++], &ex->call);
}

static struct pr_llm_conn *replay(const struct pr_chunk *ch, size_t n, size_t piece)
{
	static const struct pr_llm_conn_cfg any;
	struct pr_llm_conn *c = pr_llm_conn_new(&any);

	for (int i = 0; i < n_got; i++)
		pr_llm_call_free(&got[i]);
	n_got = 0;
	pr_feed_split(c, ch, n, piece);
	pr_take(c, on_ex, NULL);
	return c;
}

static int tool_is(const struct pr_tool_call *t, const char *name, const char *id, const char *args)
{
	return !strcmp(t->name, name) && !strcmp(t->id, id) && t->args && !strcmp(t->args, args);
}

#define SSE_HEAD "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"

/* Anthropic: a probe, a streamed tool_use whose input comes in pieces; the session header. */
static const struct pr_chunk anthropic[] = {
	{ XP_DIR_REQUEST, "HEAD / HTTP/1.1\r\nHost: a\r\n\r\n", 0, 1 },
	{ XP_DIR_RESPONSE, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 0, 2 },
	{ XP_DIR_REQUEST, "GET /v1/messages HTTP/1.1\r\nHost: a\r\n\r\n", 0, 3 },
	{ XP_DIR_RESPONSE, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n", 0, 4 },
	{ XP_DIR_REQUEST,
	  "POST /v1/messages HTTP/1.1\r\nHost: a\r\nX-Claude-Code-Session-Id: sess-42\r\n"
	  "Content-Length: 158\r\n\r\n"
	  "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
	  "\"tool_use_id\":\"toolu_0\",\"is_error\":true,\"content\":\"x\"}]}],"
	  "\"metadata\":{\"user_id\":\"u\"}}",
	  0, 10 },
	{ XP_DIR_RESPONSE,
	  SSE_HEAD "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
	  "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"Bash\",\"input\":{}}}\n\n"
	  "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
	  "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"command\\\": \\\"ls\"}}\n\n",
	  0, 20 },
	{ XP_DIR_RESPONSE,
	  "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
	  "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\" /x\\\"}\"}}\n\n"
	  "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	  0, 30 },
};

static void test_anthropic(size_t piece)
{
	struct pr_llm_conn *c = replay(anthropic, 7, piece);

	pr_llm_conn_close(c, 40);
	pr_take(c, on_ex, NULL);
	CHECK(n_got == 1 && c->other_requests == 2);
	CHECK(got[0].n_tools == 1 &&
	      tool_is(&got[0].tools[0], "Bash", "toolu_1", "{\"command\": \"ls /x\"}"));
	CHECK(got[0].n_results == 1 && !strcmp(got[0].results[0].id, "toolu_0") &&
	      got[0].results[0].is_error == 1 && pr_llm_result_of(&got[0], "toolu_0"));
	CHECK(!strcmp(got[0].conversation_id, "sess-42")); /* the header wins over the body */
	pr_llm_conn_free(c);
}

/* Chat Completions: two calls streamed by index, the second's arguments interleaved. */
static const struct pr_chunk chat[] = {
	{ XP_DIR_REQUEST,
	  "POST /v1/chat/completions HTTP/1.1\r\nHost: a\r\nContent-Length: 120\r\n\r\n"
	  "{\"model\":\"g\",\"prompt_cache_key\":\"conv-7\",\"messages\":[{\"role\":\"tool\",\"tool_call_id\":"
	  "\"call_0\",\"content\":\"ok\"}],\"stream\":1}",
	  0, 1 },
	{ XP_DIR_RESPONSE,
	  SSE_HEAD "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\","
	  "\"function\":{\"name\":\"shell\",\"arguments\":\"{\\\"cmd\\\":\"}},{\"index\":1,\"id\":"
	  "\"call_b\",\"function\":{\"name\":\"read\",\"arguments\":\"{}\"}}]}}]}\n\n",
	  0, 2 },
	{ XP_DIR_RESPONSE,
	  "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
	  "\"\\\"pwd\\\"}\"}}]}}]}\n\ndata: [DONE]\n\n",
	  0, 3 },
};

static void test_chat(size_t piece)
{
	struct pr_llm_conn *c = replay(chat, 3, piece);

	pr_llm_conn_close(c, 4);
	pr_take(c, on_ex, NULL);
	CHECK(n_got == 1 && got[0].n_tools == 2);
	CHECK(tool_is(&got[0].tools[0], "shell", "call_a", "{\"cmd\":\"pwd\"}"));
	CHECK(tool_is(&got[0].tools[1], "read", "call_b", "{}"));
	CHECK(got[0].n_results == 1 && got[0].results[0].is_error == -1);
	CHECK(!strcmp(got[0].conversation_id, "conv-7"));
	pr_llm_conn_free(c);
}

static void parse_resp(struct pr_llm_call *c, enum pr_llm_api api, const char *body)
{
	pr_llm_call_init(c, api);
	pr_llm_parse_response(c, body, strlen(body));
}

/* Whole answers: Responses function_call and local_shell_call, Anthropic, Ollama. */
static void test_whole(void)
{
	struct pr_llm_call c;
	const char *req = "{\"conversation\":{\"id\":\"conv_1\"},\"input\":[{\"type\":"
			  "\"function_call_output\",\"call_id\":\"c1\",\"output\":\"{\\\"output\\\":"
			  "\\\"\\\",\\\"metadata\\\":{\\\"exit_code\\\":2}}\"}]}";

	parse_resp(&c, XP_API_OPENAI_RESPONSES,
		   "{\"output\":[{\"type\":\"message\"},{\"type\":\"function_call\",\"call_id\":\"c2\","
		   "\"name\":\"shell\",\"arguments\":\"{\\\"command\\\":[\\\"ls\\\"]}\"},"
		   "{\"type\":\"local_shell_call\",\"call_id\":\"c3\",\"action\":{\"type\":\"exec\","
		   "\"command\":[\"ls\",\"-l\"]}}]}");
	CHECK(c.n_tools == 2 && tool_is(&c.tools[0], "shell", "c2", "{\"command\":[\"ls\"]}"));
	CHECK(tool_is(&c.tools[1], "local_shell", "c3",
		      "{\"type\":\"exec\",\"command\":[\"ls\",\"-l\"]}"));
	pr_llm_parse_request(&c, req, strlen(req));
	CHECK(c.n_results == 1 && c.results[0].exit_code == 2 && c.results[0].is_error == 1);
	CHECK(!strcmp(c.conversation_id, "conv_1"));
	pr_llm_call_free(&c);

	parse_resp(&c, XP_API_ANTHROPIC,
		   "{\"content\":[{\"type\":\"text\",\"text\":\"t\"},{\"type\":\"tool_use\",\"id\":"
		   "\"toolu_9\",\"name\":\"bash\",\"input\":{\"command\":\"uname -s\"}}]}");
	CHECK(c.n_tools == 1 && tool_is(&c.tools[0], "bash", "toolu_9", "{\"command\":\"uname -s\"}"));
	pr_llm_call_free(&c);
	parse_resp(&c, XP_API_OLLAMA_CHAT,
		   "{\"message\":{\"tool_calls\":[{\"function\":{\"name\":\"f\",\"arguments\":{}}}]}}");
	CHECK(c.n_tools == 1 && tool_is(&c.tools[0], "f", "", "{}"));
	pr_llm_call_free(&c);

	/* Claude Code's metadata.user_id names the session at its end */
	const char *cc = "{\"metadata\":{\"user_id\":\"user_ab_account_cd_session_0f-1\"}}";

	pr_llm_call_init(&c, XP_API_ANTHROPIC);
	pr_llm_parse_request(&c, cc, strlen(cc));
	CHECK(!strcmp(c.conversation_id, "0f-1"));
	pr_llm_call_free(&c);
}

/* More results than the table holds: the newest are kept. */
static void test_many_results(void)
{
	char req[8192] = "{\"messages\":[";
	struct pr_llm_call c;

	for (int i = 0; i < 40; i++)
		snprintf(req + strlen(req), sizeof(req) - strlen(req),
			 "%s{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":"
			 "\"t%d\"}]}", i ? "," : "", i);
	strcat(req, "]}");
	pr_llm_call_init(&c, XP_API_ANTHROPIC);
	pr_llm_parse_request(&c, req, strlen(req));
	CHECK(c.n_results == XP_LLM_MAX_RESULTS && pr_llm_result_of(&c, "t39") &&
	      !pr_llm_result_of(&c, "t0") && pr_llm_result_of(&c, "t39")->is_error == 0);
	pr_llm_call_free(&c);
}

int main(void)
{
	for (size_t i = 0; i < pr_piece_count; i++) {
		test_anthropic(pr_piece_sizes[i]);
		test_chat(pr_piece_sizes[i]);
	}
	test_whole();
	test_many_results();
	for (int i = 0; i < n_got; i++)
		pr_llm_call_free(&got[i]);
	return test_failures != 0;
}
