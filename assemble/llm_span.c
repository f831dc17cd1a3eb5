/* SPDX-License-Identifier: MIT */
/*
 * llm_span.c - exchange spans. The first token is the first streamed token
 * event; for an answer that is not streamed it is the first response byte.
 * TTFT here runs from the end of the request, the time the model could start.
 */
#include "assemble/llm_span.h"

#include <stdlib.h>

#include "lib/host_port.h"
#include "lib/json_int.h"
#include "lib/secrets.h"
#include "theory/theory.h"

/* Where an exchange's child spans meet: start <= req_end <= first <= end. */
struct phases {
	uint64_t start, req_end, first, end;
};

static uint64_t clamp(uint64_t t, uint64_t lo, uint64_t hi)
{
	return t < lo ? lo : t > hi ? hi : t;
}

/*
 * The one place an exchange is cut into prompt_transfer, ttft and decode,
 * each inside the exchange and in order. The first token is the first token
 * event (an answer not streamed: its first byte), also in an answer cut by
 * the end of tracing: the tokens seen before the cut are its decode (a cut
 * answer's decode once collapsed onto its end while its streaming gaps stayed
 * among the tokens, outside it). With no answer byte seen, it is all ttft.
 */
static struct phases phases_of(const struct xt_exchange *e)
{
	struct phases p = { .start = e->req_start_ns, .end = e->resp_end_ns };
	uint64_t first = e->call.n_tokens ? e->call.token_ns[0] : e->resp_start_ns;

	if (p.end < p.start)
		p.end = p.start;
	p.req_end = clamp(e->req_end_ns, p.start, p.end);
	p.first = clamp(first ? first : p.end, p.req_end, p.end);
	return p;
}

/* The time before token i; tokens recorded out of order have none between them. */
static uint64_t gap_before(const uint64_t *t, size_t i)
{
	return t[i] > t[i - 1] ? t[i] - t[i - 1] : 0;
}

/* OpenTelemetry's server.address holds no port: the authority's goes to server.port. */
static void server_attrs(cJSON *at, const char *authority)
{
	char host[sizeof(((struct xt_exchange *)0)->host)];
	int port;

	xp_host_port(authority, host, sizeof(host), &port);
	cJSON_AddStringToObject(at, "server.address", host);
	if (port)
		cJSON_AddNumberToObject(at, "server.port", port);
}

/* s as the attribute key of at, through the redactor (lib/secrets.h). */
static void add_redacted(cJSON *at, const char *key, const char *s)
{
	char *r = xp_redact(s);

	cJSON_AddStringToObject(at, key, r ? r : s);
	free(r);
}

/* The usage counts in the order the file lists them. */
static const enum tt_ex_num usage_num[] = {
	TT_EX_INPUT_TOKENS, TT_EX_OUTPUT_TOKENS, TT_EX_CACHE_READ_TOKENS,
	TT_EX_CACHE_WRITE_TOKENS, TT_EX_REASONING_TOKENS,
};

/* The exchange's facts go typed (core/turn.h); the writer places the rest among them. */
static int genai_attrs(struct tt_span *sp, const struct xt_exchange *e, uint64_t ttft)
{
	const struct pr_llm_call *c = &e->call;
	const int64_t usage[] = { pr_llm_input_tokens(c), c->output_tokens, c->cache_read_tokens,
				  c->cache_write_tokens, c->reasoning_tokens };
	const char *finish = c->finish_reason;
	struct tt_exchange *ex = &sp->ex;
	cJSON *at = sp->attrs, *arr;
	int rc = tt_ex_set_str(ex, TT_EX_PROVIDER, pr_llm_provider(c->api));

	if (c->conversation_id[0])
		cJSON_AddStringToObject(at, "gen_ai.conversation.id", c->conversation_id);
	if (c->req_model[0])
		rc |= tt_ex_set_str(ex, TT_EX_REQUEST_MODEL, c->req_model);
	if (c->resp_model[0])
		rc |= tt_ex_set_str(ex, TT_EX_RESPONSE_MODEL, c->resp_model);
	for (size_t i = 0; i < sizeof(usage_num) / sizeof(*usage_num); i++)
		if (usage[i] >= 0)
			tt_ex_set(ex, usage_num[i], (double)usage[i]);
	if (finish[0])
		rc |= tt_ex_set_finish(ex, &finish, 1);
	if (e->answered) /* also in seconds, by the writer */
		tt_ex_set(ex, TT_EX_TTFT_NS, (double)ttft);
	if (c->status) /* unknown in the ciphertext tier */
		tt_ex_set(ex, TT_EX_STATUS, c->status);
	cJSON_AddBoolToObject(at, "xperf.stream", c->stream);
	server_attrs(at, e->host);
	add_redacted(at, "url.path", e->path); /* "?key=..." stays out */
	xp_json_add_u64(at, "http.request.body.size", e->req_bytes);
	tt_ex_set(ex, TT_EX_RESPONSE_BYTES, (double)e->resp_bytes);
	if (c->error_type[0])
		cJSON_AddStringToObject(at, "error.type", c->error_type);
	if (e->req_text) /* opt-in (--capture-payloads): the prompt and the answer */
		cJSON_AddStringToObject(at, "xperf.payload.request", e->req_text);
	if (c->text)
		cJSON_AddStringToObject(at, "xperf.payload.completion", c->text);
	if (e->shadow_req_start_ns) { /* the ciphertext tier's view of the same exchange */
		xp_json_add_u64(at, "xperf.ciphertext.start_ns", e->shadow_req_start_ns);
		xp_json_add_u64(at, "xperf.ciphertext.end_ns", e->shadow_resp_end_ns);
		xp_json_add_u64(at, "xperf.ciphertext.ttft_ns", e->shadow_ttft_ns);
	}
	if (e->cipher) /* sends taken for HTTP/2 control frames, not requests (cipher.h) */
		xp_json_add_u64(at, "xperf.ciphertext.control_records", e->control_records);
	arr = cJSON_AddArrayToObject(at, "xperf.tool_calls");
	for (int i = 0; i < c->n_tools; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(c->tools[i].name));
	return rc | tt_ex_set_tokens(ex, c->token_ns, c->n_tokens);
}

static void waste(struct tt_turn *d, const struct xt_exchange *e, int id)
{
	const struct pr_llm_call *c = &e->call;

	if (c->status >= 400)
		cJSON_AddNumberToObject(xt_doc_waste(d, "llm_error", e->resp_end_ns, id, "errors", 1),
					"http.response.status_code", c->status);
	if (d->spans[id - 1].ex.finish_length) /* the core's rule (core/exchange.c) */
		cJSON_AddStringToObject(xt_doc_waste(d, "truncated_output", e->resp_end_ns, id,
						     "truncations", 1),
					"finish_reason", c->finish_reason);
	if (e->aborted && e->answered)
		xt_doc_waste(d, "aborted_stream", e->resp_end_ns, id, "aborted", 1);
}

/* Gaps between token events inside decode span `dec` (p->first to p->end). */
static int gaps(struct tt_turn *d, int dec, const struct xt_exchange *e, const struct phases *p,
		const struct xt_sched *sched)
{
	const uint64_t *t = e->call.token_ns;
	uint64_t thr = th_stream_gap_threshold(t, e->call.n_tokens);

	for (size_t i = 1; i < e->call.n_tokens; i++) {
		if (gap_before(t, i) <= thr || t[i - 1] < p->first || t[i] > p->end)
			continue;
		int id = xt_doc_span(d, dec, "streaming_gap", t[i - 1], t[i], e->tid, sched, NULL);
		cJSON *at = id > 0 ? xt_doc_fused(d, "streaming_gap", t[i - 1], id) : NULL;

		if (!at)
			return -1;
		xp_json_add_u64(at, "gap_ns", t[i] - t[i - 1]);
		xp_json_add_u64(at, "threshold_ns", thr);
	}
	return 0;
}

int xt_llm_span(struct tt_turn *d, const struct xt_exchange *e, const struct xt_sched *sched)
{
	const struct phases p = phases_of(e);
	cJSON *at;
	struct tt_span *sp;
	int id = xt_doc_span(d, 0, "llm_inference", p.start, p.end, e->tid, sched, &sp);

	if (id < 0 || genai_attrs(sp, e, p.first - p.req_end))
		return -1;
	if (xt_doc_span(d, id, "prompt_transfer", p.start, p.req_end, e->tid, sched, NULL) < 0 ||
	    xt_doc_span(d, id, "ttft", p.req_end, p.first, e->tid, sched, NULL) < 0)
		return -1;
	int dec = xt_doc_span(d, id, "decode", p.first, p.end, e->tid, sched, NULL);

	if (dec < 0 || gaps(d, dec, e, &p, sched))
		return -1;
	if (e->answered) {
		at = xt_doc_fused(d, "ttft", p.first, id);
		if (!at)
			return -1;
		xp_json_add_u64(at, "ttft_ns", p.first - p.req_end);
	}
	waste(d, e, id);
	return id;
}
