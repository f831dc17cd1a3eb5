/* SPDX-License-Identifier: MIT */
/*
 * llm_conn.c - glue from HTTP messages to LLM exchanges: request-direction
 * callbacks open and fill an exchange, response-direction callbacks time and
 * parse its answer. HTTP/1.1 requests and responses pair by their position on
 * the connection, HTTP/2 ones by stream id: both arrive as the message number.
 */
#define _GNU_SOURCE
#include "proto/llm_conn.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

static struct pr_llm_exchange **slot_of(struct pr_llm_conn *c, uint32_t msg)
{
	for (size_t i = 0; i < XP_LLM_MAX_PENDING; i++)
		if (c->pending[i] && c->pending[i]->msg == msg)
			return &c->pending[i];
	return NULL;
}

static struct pr_llm_exchange **free_slot(struct pr_llm_conn *c)
{
	for (size_t i = 0; i < XP_LLM_MAX_PENDING; i++)
		if (!c->pending[i])
			return &c->pending[i];
	return NULL;
}

static struct pr_llm_exchange *find(struct pr_llm_conn *c, uint32_t msg)
{
	struct pr_llm_exchange **s = slot_of(c, msg);

	return s ? *s : NULL;
}

int pr_llm_host_ok(const char *const *hosts, const char *host)
{
	if (!hosts)
		return 1;
	for (; *hosts; hosts++)
		if (!fnmatch(*hosts, host, FNM_CASEFOLD))
			return 1;
	return 0;
}

/* Also the identity decoder of a request body (pr_decoded_cb). */
static void append_body(void *ctx, const char *d, size_t n)
{
	struct pr_llm_exchange *ex = ctx;

	if (ex->body_len + n > XP_LLM_BODY_MAX ||
	    xp_buf_append(&ex->body, &ex->body_len, &ex->body_cap, d, n))
		ex->truncated = 1;
}

static void drop_body(struct pr_llm_exchange *ex)
{
	free(ex->body);
	ex->body = NULL;
	ex->body_len = ex->body_cap = 0;
}

void pr_llm_exchange_free(struct pr_llm_exchange *ex)
{
	pr_decoder_free(ex->dec[XP_DIR_REQUEST]);
	pr_decoder_free(ex->dec[XP_DIR_RESPONSE]);
	free(ex->req_text);
	pr_sse_free(&ex->sse);
	pr_llm_call_free(&ex->call);
	drop_body(ex);
	free(ex);
}

/* Moves a finished (or cut) exchange to the queue the caller takes from. */
static void finish(struct pr_llm_conn *c, struct pr_llm_exchange **slot)
{
	struct pr_llm_exchange *ex = *slot;

	*slot = NULL;
	*c->done_tail = ex;
	c->done_tail = &ex->next;
}

struct pr_llm_exchange *pr_llm_conn_next(struct pr_llm_conn *c)
{
	struct pr_llm_exchange *ex = c->done;

	if (ex && !(c->done = ex->next))
		c->done_tail = &c->done;
	return ex;
}

/*
 * A body in a coding other than identity gets a decoder; one xperf cannot
 * decode marks the exchange truncated (its body is unread, not misread).
 */
static void set_coding(struct pr_llm_exchange *ex, enum pr_dir dir, const char *value)
{
	enum pr_coding coding = pr_coding_parse(value);

	ex->coding[dir] = coding;
	if (coding == XP_CODING_IDENTITY)
		return;
	ex->dec[dir] = coding == XP_CODING_UNKNOWN ? NULL :
		       pr_decoder_new(coding, dir == XP_DIR_REQUEST ? XP_LLM_BODY_MAX :
								       XP_LLM_DECODED_MAX);
	if (!ex->dec[dir])
		ex->truncated = 1;
}

/* Only a POST to an LLM API path (on an LLM host) is a model call. */
static int is_model_call(const struct pr_http_head *h, enum pr_llm_api api)
{
	return api != XP_API_NONE && (!h->method[0] || !strcmp(h->method, "POST"));
}

static void req_head(void *ctx, uint32_t msg, const struct pr_http_head *h, uint64_t t_ns)
{
	struct pr_llm_conn *c = ctx;
	enum pr_llm_api api = pr_llm_api_of_path(h->path, c->cfg->extra_paths);
	struct pr_llm_exchange **slot = free_slot(c);

	if (!pr_llm_host_ok(c->cfg->hosts, h->authority))
		return;
	if (!is_model_call(h, api)) {
		c->other_requests++;
		return;
	}
	if (!slot)
		return;
	struct pr_llm_exchange *ex = calloc(1, sizeof(*ex));

	if (!ex)
		return;
	pr_llm_call_init(&ex->call, api);
	ex->call.keep_text = c->cfg->capture_payloads;
	ex->msg = msg;
	ex->req_start_ns = ex->req_end_ns = t_ns;
	memcpy(ex->host, h->authority, sizeof(ex->host));
	memcpy(ex->path, h->path, sizeof(ex->path));
	memcpy(ex->call.conversation_id, h->session_id, sizeof(ex->call.conversation_id));
	set_coding(ex, XP_DIR_REQUEST, h->content_encoding);
	*slot = ex;
}

/* Body bytes as they came: decoded first when the body is compressed. */
static void body_in(struct pr_llm_exchange *ex, enum pr_dir dir, const char *d, size_t n,
		    pr_decoded_cb plain)
{
	if (ex->coding[dir] == XP_CODING_IDENTITY)
		plain(ex, d, n);
	else if (!ex->dec[dir] || pr_decoder_feed(ex->dec[dir], d, n, plain, ex))
		ex->truncated = 1;
}

static void req_body(void *ctx, uint32_t msg, const char *d, size_t n, uint64_t t_ns)
{
	struct pr_llm_exchange *ex = find(ctx, msg);

	if (!ex || ex->req_done)
		return;
	ex->req_bytes += n;
	ex->req_end_ns = t_ns;
	body_in(ex, XP_DIR_REQUEST, d, n, append_body);
}

static void req_end(void *ctx, uint32_t msg, int aborted, uint64_t t_ns)
{
	struct pr_llm_exchange *ex = find(ctx, msg);

	if (!ex || ex->req_done)
		return;
	ex->req_done = 1;
	ex->req_end_ns = t_ns;
	ex->aborted |= aborted;
	if (ex->body_len)
		pr_llm_parse_request(&ex->call, ex->body, ex->body_len);
	if (ex->call.keep_text && ex->body_len)
		ex->req_text = strndup(ex->body, ex->body_len < XP_LLM_TEXT_MAX ? ex->body_len :
										 XP_LLM_TEXT_MAX);
	drop_body(ex);
}

/* An event of the stream, timed by the read that completed it. */
static void on_event(struct pr_llm_exchange *ex, const struct pr_sse_event *ev, uint64_t t_ns)
{
	if (!ev->data)
		return;
	ex->truncated |= ev->truncated;
	pr_llm_stream_event(&ex->call, ev->name, ev->data, ev->len, t_ns);
}

static void resp_head(void *ctx, uint32_t msg, const struct pr_http_head *h, uint64_t t_ns)
{
	struct pr_llm_exchange *ex = find(ctx, msg);
	int sse = !strncmp(h->content_type, "text/event-stream", 17);
	int ndjson = !sse && strstr(h->content_type, "ndjson");

	if (!ex || ex->resp_head)
		return;
	ex->resp_head = 1;
	ex->resp_start_ns = ex->resp_end_ns = t_ns;
	ex->call.status = h->status;
	memcpy(ex->retry_after, h->retry_after, sizeof(ex->retry_after));
	set_coding(ex, XP_DIR_RESPONSE, h->content_encoding);
	ex->streaming = sse || ndjson;
	if (ex->streaming)
		pr_sse_init(&ex->sse, ndjson);
}

static void resp_plain(void *ctx, const char *d, size_t n)
{
	struct pr_llm_exchange *ex = ctx;

	struct pr_sse_event ev;
	long used;

	if (!ex->streaming) {
		append_body(ex, d, n);
		return;
	}
	for (; n; d += used, n -= (size_t)used) {
		if ((used = pr_sse_feed(&ex->sse, d, n, &ev)) < 0) {
			ex->truncated = 1;
			return;
		}
		on_event(ex, &ev, ex->feed_ns);
	}
}

static void resp_body(void *ctx, uint32_t msg, const char *d, size_t n, uint64_t t_ns)
{
	struct pr_llm_exchange *ex = find(ctx, msg);

	if (!ex || !ex->resp_head)
		return;
	if (!ex->body_start_ns && n)
		ex->body_start_ns = t_ns;
	ex->resp_bytes += n;
	ex->resp_end_ns = t_ns;
	ex->feed_ns = t_ns;
	body_in(ex, XP_DIR_RESPONSE, d, n, resp_plain);
}

static void resp_end(void *ctx, uint32_t msg, int aborted, uint64_t t_ns)
{
	struct pr_llm_conn *c = ctx;
	struct pr_llm_exchange **slot = slot_of(c, msg);
	struct pr_llm_exchange *ex = slot ? *slot : NULL;

	if (!ex || !ex->resp_head)
		return;
	ex->resp_end_ns = t_ns;
	if (ex->streaming) {
		struct pr_sse_event ev;

		pr_sse_finish(&ex->sse, &ev);
		on_event(ex, &ev, t_ns);
		/* a 2xx stream that ends without its own end event was cut */
		if (!ex->call.stream_done && ex->call.status < 300)
			aborted = 1;
	} else if (ex->body_len && !ex->truncated) {
		pr_llm_parse_response(&ex->call, ex->body, ex->body_len);
	}
	ex->aborted |= aborted;
	finish(c, slot);
}

struct pr_llm_conn *pr_llm_conn_new(const struct pr_llm_conn_cfg *cfg)
{
	struct pr_llm_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->cfg = cfg;
	c->done_tail = &c->done;
	c->sink[XP_DIR_REQUEST] = (struct pr_msg_sink){ req_head, req_body, req_end, c };
	c->sink[XP_DIR_RESPONSE] = (struct pr_msg_sink){ resp_head, resp_body, resp_end, c };
	return c;
}

/* Chooses HTTP/1.1 or HTTP/2 from the first request bytes (buffered until sure). */
static int sniff(struct pr_llm_conn *c, const char *d, size_t n, uint64_t t_ns)
{
	size_t take = sizeof(c->sniff) - c->sniff_len < n ? sizeof(c->sniff) - c->sniff_len : n;

	memcpy(c->sniff + c->sniff_len, d, take);
	c->sniff_len += take;
	if (!memcmp(c->sniff, pr_http2_preface, c->sniff_len) && c->sniff_len < sizeof(c->sniff))
		return 0; /* still a prefix of the HTTP/2 preface */
	if (!memcmp(c->sniff, pr_http2_preface, c->sniff_len)) {
		c->proto = 2;
		for (int dir = 0; dir < 2; dir++)
			if (pr_http2_init(&c->h2[dir], dir, &c->sink[dir]))
				c->proto = -1;
	} else {
		c->proto = 1;
		for (int dir = 0; dir < 2; dir++)
			pr_http1_init(&c->h1[dir], dir, &c->sink[dir]);
	}
	if (c->proto < 0 || pr_llm_conn_feed(c, XP_DIR_REQUEST, c->sniff, c->sniff_len, t_ns))
		return -1;
	return take == n ? 0 : pr_llm_conn_feed(c, XP_DIR_REQUEST, d + take, n - take, t_ns);
}

/*
 * Bytes that open an HTTP/1.1 request: "METHOD /path HTTP/1.1\r\n" (the line
 * whole). d is a write, not a string: nothing past the line is read.
 */
static int request_start(const char *d, size_t n)
{
	static const char *const methods[] = { "POST /", "GET /", "PUT /", "PATCH /", NULL };
	const char *eol = memchr(d, '\n', n < 2048 ? n : 2048);

	for (const char *const *m = methods; *m && eol; m++)
		if (n >= strlen(*m) && !memcmp(d, *m, strlen(*m)))
			return eol - d >= 10 && !memcmp(eol - 9, "HTTP/1.", 7);
	return 0;
}

/* The request parser holds the start of a "head" that is no request line. */
static int stale_head(const struct pr_llm_conn *c)
{
	const struct pr_http1 *p = &c->h1[XP_DIR_REQUEST];

	return c->proto == 1 && p->state == XP_H1_HEAD && p->buf_len > 0 &&
	       !request_start(p->buf, p->buf_len);
}

/*
 * Starts over on a connection whose framing was lost (tracing attached in
 * the middle of a message, bytes the capture dropped): exchanges in flight
 * are forgotten, the next request is parsed from scratch.
 */
static void resync(struct pr_llm_conn *c)
{
	for (size_t i = 0; i < XP_LLM_MAX_PENDING; i++)
		if (c->pending[i]) {
			pr_llm_exchange_free(c->pending[i]);
			c->pending[i] = NULL;
		}
	for (int dir = 0; dir < 2; dir++)
		pr_http2_free(&c->h2[dir]);
	c->proto = 0;
	c->sniff_len = 0;
	c->resyncs++;
}

int pr_llm_conn_feed(struct pr_llm_conn *c, enum pr_dir dir, const char *data, size_t len,
		     uint64_t t_ns)
{
	int rc;

	if (dir == XP_DIR_REQUEST && (c->proto < 0 || stale_head(c)) && request_start(data, len))
		resync(c);
	if (c->proto == 0) {
		if (dir != XP_DIR_REQUEST)
			return 0; /* an answer before any question: nothing to pair it with */
		return sniff(c, data, len, t_ns);
	}
	if (c->proto == 1)
		rc = pr_http1_feed(&c->h1[dir], data, len, t_ns);
	else if (c->proto == 2)
		rc = pr_http2_feed(&c->h2[dir], data, len, t_ns);
	else
		rc = -1;
	if (rc)
		c->proto = -1;
	return rc;
}

void pr_llm_conn_lost(struct pr_llm_conn *c, enum pr_dir dir, size_t n, uint64_t t_ns)
{
	c->lost_bytes += n;
	for (size_t i = 0; i < XP_LLM_MAX_PENDING; i++)
		if (c->pending[i])
			c->pending[i]->truncated = 1;
	if (c->proto == 1 && pr_http1_skip(&c->h1[dir], n, t_ns) == 0)
		return;
	c->proto = -1; /* framing lost: nothing after this can be trusted */
}

void pr_llm_conn_close(struct pr_llm_conn *c, uint64_t t_ns)
{
	if (c->proto == 1) {
		pr_http1_close(&c->h1[XP_DIR_RESPONSE], t_ns);
		pr_http1_close(&c->h1[XP_DIR_REQUEST], t_ns);
	}
	for (size_t i = 0; i < XP_LLM_MAX_PENDING; i++) {
		if (!c->pending[i])
			continue;
		c->pending[i]->aborted = 1;
		if (!c->pending[i]->resp_end_ns)
			c->pending[i]->resp_end_ns = t_ns;
		finish(c, &c->pending[i]);
	}
}

void pr_llm_conn_free(struct pr_llm_conn *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < XP_LLM_MAX_PENDING; i++)
		if (c->pending[i])
			pr_llm_exchange_free(c->pending[i]);
	for (struct pr_llm_exchange *ex; (ex = pr_llm_conn_next(c));)
		pr_llm_exchange_free(ex);
	for (int dir = 0; dir < 2; dir++)
		pr_http2_free(&c->h2[dir]);
	free(c);
}
