/* SPDX-License-Identifier: MIT */
/*
 * cipher.c - burst pattern per connection: HANDSHAKE (client hello sent) ->
 * READY (server flight received) -> REQUEST (sends) -> RESPONSE (receives)
 * -> REQUEST (the next send, unless a control record, ends the exchange) ...
 * until close.
 */
#include "assemble/cipher.h"

#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "proto/llm_conn.h"

enum phase { P_NEW, P_HELLO, P_READY, P_REQUEST, P_RESPONSE };

#define XT_CIPHER_SKIP_MAX 16
_Static_assert(XT_CIPHER_LEAD_RECORDS <= 32, "lead_ack holds a bit per lead record");

struct sconn {
	uint32_t tgid;
	uint64_t cookie;
	int llm;
	int covered; /* data moved inside SSL calls: the plaintext tier sees it */
	enum phase phase;
	int first; /* no answer yet beyond set-aside receives (cipher.h, on the tickets) */
	unsigned n_ex; /* exchanges opened on the connection */
	uint64_t first_req_end; /* the end of its first request */
	uint64_t connect_ns; /* when its connect began (0: not seen) */
	uint64_t ready_ns;   /* TLS handshake's end: the client's Finished, else the server flight */
	uint64_t skip_t[XT_CIPHER_SKIP_MAX]; /* ticket-like receives set aside */
	uint64_t skip_bytes;
	size_t n_skip;
	uint32_t lead_len[XT_CIPHER_LEAD_RECORDS]; /* sizes of the answer's first records */
	uint32_t lead_ack; /* bit k: its record k acknowledged a held send (cipher.h) */
	uint64_t run_bytes; /* the answer's records since its last pause */
	size_t tail; /* its trailing control runs start at this record; 0: none (cipher.h) */
	uint64_t tail_bytes;
	uint32_t n_held; /* small sends since the last receive (cipher.h) */
	uint64_t held_t, held_len; /* the last of them */
	char host[256];
	struct xt_exchange *e; /* the open exchange */
};

struct xt_cipher {
	const char *const *hosts;
	xt_cipher_cb cb;
	void *ctx;
	struct sconn *c;
	size_t n, cap;
};

struct xt_cipher *xt_cipher_new(const char *const *hosts, xt_cipher_cb cb, void *ctx)
{
	struct xt_cipher *c = calloc(1, sizeof(*c));

	if (c)
		*c = (struct xt_cipher){ .hosts = hosts, .cb = cb, .ctx = ctx };
	return c;
}

static struct sconn *find(struct xt_cipher *c, const struct xt_event *ev, int create)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->c[i].tgid == ev->tgid && c->c[i].cookie == ev->conn)
			return &c->c[i];
	if (!create)
		return NULL;
	if (xp_grow((void **)&c->c, &c->cap, c->n + 1, sizeof(*c->c)))
		return NULL;
	c->c[c->n] = (struct sconn){ .tgid = ev->tgid, .cookie = ev->conn,
				     .llm = pr_llm_host_ok(c->hosts, "") };
	return &c->c[c->n++];
}

/* The answer starts after the longest pause among the set-aside receives. */
static void answer_in_skipped(const struct sconn *s, struct xt_exchange *e)
{
	size_t start = 0;
	uint64_t gap = 0;

	for (size_t i = 1; i < s->n_skip; i++)
		if (s->skip_t[i] - s->skip_t[i - 1] > gap) {
			gap = s->skip_t[i] - s->skip_t[i - 1];
			start = i;
		}
	e->resp_start_ns = s->skip_t[start];
	e->resp_end_ns = s->skip_t[s->n_skip - 1];
}

/* How many of the answer's first records were its head (cipher.h). */
static size_t head_records(const struct sconn *s, const struct xt_exchange *e)
{
	const uint64_t *t = e->call.token_ns;
	uint64_t bytes = 0;

	for (size_t k = 1; k < e->call.n_tokens && k <= XT_CIPHER_HEAD_RECORDS; k++) {
		uint64_t delay = t[k - 1] > e->req_end_ns ? t[k - 1] - e->req_end_ns : 0;
		uint64_t pause = t[k] - t[k - 1];

		bytes += s->lead_len[k - 1];
		if (delay > XT_CIPHER_HEAD_NS || bytes > XT_CIPHER_HEAD_BYTES)
			return 0;
		if (pause >= XT_CIPHER_HEAD_PAUSE_NS && pause >= 4 * delay)
			return k;
	}
	return 0;
}

/* Past the server's control records from the answer's record from on (cipher.h). */
static size_t past_control(const struct sconn *s, const struct xt_exchange *e, size_t from)
{
	const uint64_t *t = e->call.token_ns;
	uint64_t bytes = 0;

	for (size_t k = from + 1; k < e->call.n_tokens && k <= XT_CIPHER_LEAD_RECORDS; k++) {
		bytes += s->lead_len[k - 1];
		if (bytes > XT_CIPHER_CONTROL_BYTES)
			break;
		if (t[k] - t[k - 1] >= XT_CIPHER_HEAD_PAUSE_NS ||
		    (k - 1 == from && ((s->lead_ack >> from) & 1))) {
			bytes = 0;
			from = k;
		}
	}
	return from;
}

/* The first token is after the answer's first k records (head, server's control records). */
static void skip_lead(struct xt_exchange *e, size_t k)
{
	if (!k)
		return;
	memmove(e->call.token_ns, e->call.token_ns + k, (e->call.n_tokens - k) * sizeof(uint64_t));
	e->call.n_tokens -= k;
}

/* A run of records starts after each pause; one larger than a control record is data. */
static void track_tail(struct sconn *s, const struct xt_exchange *e, uint32_t len)
{
	const uint64_t *t = e->call.token_ns;
	size_t k = e->call.n_tokens - 1;

	if (k && t[k] - t[k - 1] >= XT_CIPHER_HEAD_PAUSE_NS) {
		s->run_bytes = 0;
		if (!s->tail) {
			s->tail = k;
			s->tail_bytes = 0;
		}
	}
	s->run_bytes += len;
	s->tail_bytes += len;
	if (s->run_bytes > XT_CIPHER_CONTROL_BYTES)
		s->tail = 0;
}

/* The answer ends before its trailing control runs, if it has records past its lead. */
static void trim_tail(const struct sconn *s, struct xt_exchange *e, size_t lead)
{
	if (s->tail <= lead || s->tail >= e->call.n_tokens)
		return;
	e->call.n_tokens = s->tail;
	e->resp_end_ns = e->call.token_ns[s->tail - 1];
	e->resp_bytes -= s->tail_bytes;
}

/* No model call (cipher.h): a probe by its request, a token count by its answer. */
static int is_probe(const struct xt_exchange *e, uint64_t answer_bytes)
{
	if (e->call.n_tokens > 2)
		return 0;
	return (e->req_bytes <= XT_CIPHER_PROBE_REQ && e->resp_bytes <= XT_CIPHER_PROBE_RESP) ||
	       answer_bytes <= XT_CIPHER_COUNT_RESP;
}

/* The held sends were control records of the open exchange, if any. */
static void held_are_control(struct sconn *s)
{
	if (s->e)
		s->e->control_records += s->n_held;
	s->n_held = 0;
}

static void finish(struct xt_cipher *c, struct sconn *s, int cut)
{
	struct xt_exchange *e = s->e;
	size_t lead;

	held_are_control(s);
	if (!e)
		return;
	s->e = NULL;
	lead = past_control(s, e, head_records(s, e));
	trim_tail(s, e, lead);
	uint64_t answer_bytes = e->resp_bytes; /* without the session tickets set aside */

	s->first = s->first && !e->resp_start_ns; /* cipher.h, on the tickets */

	if (!e->resp_start_ns && s->n_skip) { /* the "tickets" held the whole answer */
		answer_in_skipped(s, e);
		answer_bytes = s->skip_bytes;
	}
	e->resp_bytes += s->skip_bytes;
	s->n_skip = 0;
	s->skip_bytes = 0;
	if (!e->resp_start_ns && e->req_bytes <= XT_CIPHER_FINISHED_BYTES) {
		xt_exchange_free(e); /* a TLS alert (close_notify) sent without an answer */
		return;
	}
	e->answered = e->resp_start_ns && !cut;
	e->cipher = 1;
	e->probe = e->answered && is_probe(e, answer_bytes);
	skip_lead(e, lead);
	c->cb(c->ctx, e, s->covered);
}

static void on_send(struct xt_cipher *c, struct sconn *s, const struct xt_event *ev)
{
	uint64_t start = ev->ts_ns, bytes = 0;

	if (s->phase == P_NEW || s->phase == P_HELLO) {
		s->phase = P_HELLO;
		return;
	}
	if (s->phase == P_READY && ev->len <= XT_CIPHER_FINISHED_BYTES) {
		s->ready_ns = ev->ts_ns; /* the client's Finished (TLS 1.3), after the server's */
		return;
	}
	if (ev->len <= XT_CIPHER_CONTROL_BYTES &&
	    (s->phase == P_RESPONSE ||
	     (s->phase == P_REQUEST && ev->ts_ns > s->e->req_end_ns + XT_CIPHER_REQ_JOIN_NS))) {
		s->n_held++; /* a control record or the next request's HEADERS (cipher.h) */
		s->held_t = ev->ts_ns;
		s->held_len = ev->len;
		return;
	}
	if (s->phase == P_RESPONSE) {
		if (s->n_held && ev->ts_ns - s->held_t <= XT_CIPHER_REQ_JOIN_NS) {
			s->n_held--; /* the last one held was this request's first record */
			start = s->held_t;
			bytes = s->held_len;
		}
		finish(c, s, 0);
	}
	if (!s->e) {
		s->e = calloc(1, sizeof(*s->e));
		if (!s->e)
			return;
		s->first |= s->phase == P_READY;
		s->n_ex++;
		s->tail = 0;
		s->run_bytes = 0;
		s->lead_ack = 0;
		pr_llm_call_init(&s->e->call, XP_API_NONE);
		s->e->tgid = ev->tgid;
		s->e->tid = ev->tid;
		s->e->req_start_ns = start; /* as the plaintext tier: when the write returned */
		if (s->n_ex == 1 && s->connect_ns && s->connect_ns < start) { /* TCP + TLS set-up */
			s->e->setup_start_ns = s->connect_ns;
			s->e->setup_end_ns = s->ready_ns > s->connect_ns && s->ready_ns < start ?
						     s->ready_ns : start;
		}
		s->e->req_bytes = bytes;
		memcpy(s->e->host, s->host, sizeof(s->host));
	}
	s->e->req_end_ns = ev->ts_ns;
	if (s->n_ex == 1)
		s->first_req_end = ev->ts_ns;
	s->e->req_bytes += ev->len;
	s->phase = P_REQUEST;
}

static void on_recv(struct sconn *s, const struct xt_event *ev)
{
	struct xt_exchange *e = s->e;
	uint32_t ack;

	if (s->phase == P_HELLO || s->phase == P_READY) {
		s->phase = P_READY;
		s->ready_ns = ev->ts_ns;
		return;
	}
	if (!ev->len)
		return;
	ack = s->n_held && ev->len <= XT_CIPHER_CONTROL_BYTES;
	held_are_control(s);
	if (!e)
		return;
	if (!e->resp_start_ns && s->first && ev->ts_ns - s->first_req_end < XT_CIPHER_TICKET_NS &&
	    s->skip_bytes + ev->len <= XT_CIPHER_TICKET_BYTES && s->n_skip < XT_CIPHER_SKIP_MAX) {
		s->skip_t[s->n_skip++] = ev->ts_ns;
		s->skip_bytes += ev->len;
		s->phase = P_RESPONSE; /* the next send still ends the exchange */
		return;
	}
	if (!e->resp_start_ns)
		e->resp_start_ns = ev->ts_ns;
	e->resp_end_ns = ev->ts_ns;
	e->resp_bytes += ev->len;
	e->streaming = 1;
	if (e->call.n_tokens < XT_CIPHER_LEAD_RECORDS) {
		s->lead_len[e->call.n_tokens] = ev->len;
		s->lead_ack |= ack << e->call.n_tokens;
	}
	if (xp_grow((void **)&e->call.token_ns, &e->call.cap_tokens, e->call.n_tokens + 1,
		    sizeof(uint64_t)))
		return;
	e->call.token_ns[e->call.n_tokens++] = ev->ts_ns;
	track_tail(s, e, ev->len);
	s->phase = P_RESPONSE;
}

void xt_cipher_event(struct xt_cipher *c, const struct xt_event *ev)
{
	struct sconn *s;

	switch (ev->kind) {
	case XT_SOCK_OPEN:
		s = find(c, ev, 1);
		if (s && ev->call_ns && !s->connect_ns)
			s->connect_ns = ev->call_ns;
		if (s && ev->host) { /* the SNI: its ClientHello has been sent */
			strncpy(s->host, ev->host, sizeof(s->host) - 1);
			s->llm = pr_llm_host_ok(c->hosts, ev->host);
			if (s->phase == P_NEW)
				s->phase = P_HELLO;
		}
		break;
	case XT_SOCK:
		s = find(c, ev, 1);
		if (s)
			s->covered |= ev->in_tls;
		if (s && s->llm)
			ev->dir == XT_WRITE ? on_send(c, s, ev) : on_recv(s, ev);
		break;
	case XT_SOCK_CLOSE:
		s = find(c, ev, 0);
		if (s) {
			finish(c, s, 0);
			*s = c->c[--c->n];
		}
		break;
	default:
		break;
	}
}

void xt_cipher_settle(struct xt_cipher *c, uint32_t tgid, uint64_t t)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct xt_exchange *e = c->c[i].e;

		if (c->c[i].tgid == tgid && e && e->resp_end_ns && e->req_start_ns < t &&
		    e->resp_end_ns < t)
			finish(c, &c->c[i], 0);
	}
}

void xt_cipher_flush(struct xt_cipher *c, uint64_t t, int cut)
{
	for (size_t i = 0; i < c->n; i++) {
		if (c->c[i].e && !c->c[i].e->resp_end_ns)
			c->c[i].e->resp_end_ns = t;
		finish(c, &c->c[i], cut);
	}
}

void xt_cipher_free(struct xt_cipher *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		if (c->c[i].e)
			xt_exchange_free(c->c[i].e);
	free(c->c);
	free(c);
}
