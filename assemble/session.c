/* SPDX-License-Identifier: MIT */
/*
 * session.c - event intake and turn grouping. Exchanges wait, sorted by
 * request start, until the first exchange of the following turn has
 * completed: then the turn before it is final and written. Every agent
 * process (the tgid that made the exchange) has turns of its own.
 */
#include "assemble/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assemble/cipher.h"
#include "assemble/turn.h"
#include "core/write.h"
#include "lib/grow.h"

/* A ciphertext exchange is the same as a plaintext one when their answers end this close. */
#define XT_SHADOW_MATCH_NS 20000000ull
#define XT_SHADOW_START_NS 1000000ull

/* Bytes of a TLS record header: OpenSSL reads it, then the record's body. */
#define XT_TLS_HEADER 5

/* Processes remembered as having a plaintext tier (hashed by tgid). */
#define XT_PLAIN_PROCS 64

/* Answers of written plaintext exchanges remembered for late ciphertext twins. */
#define XT_WRITTEN 64

/* Threads whose last TLS/socket call is remembered (for read timing). */
#define XT_IO_THREADS 64
/* Connections whose last I/O is remembered likewise: 2^XT_IO_CONN_BITS. */
#define XT_IO_CONN_BITS 6

struct conn {
	uint32_t tgid;
	uint64_t id;
	uint64_t pos[2]; /* next expected stream offset per direction */
	struct pr_llm_conn *c;
};

struct xt_session {
	const struct xt_config *cfg;
	char dir[4096];
	struct xt_sched *sched;
	struct xt_procs procs;
	struct xt_cmdset seen;
	struct xt_cipher *cipher;
	struct conn *conns;
	size_t n_conns, cap_conns;
	struct xt_exchange **ex; /* not yet written, sorted by req_start_ns */
	size_t n_ex, cap_ex;
	struct xt_exchange **shadow; /* ciphertext timing of plaintext-tier exchanges */
	size_t n_shadow, cap_shadow;
	uint32_t plain_tgid[XT_PLAIN_PROCS]; /* processes whose TLS plaintext is seen */
	uint32_t cur_tgid, cur_tid; /* the event being fed */
	struct agent {
		uint32_t tgid;
		uint64_t next_start; /* start of its next turn to write */
	} *agents;
	size_t n_agents, cap_agents;
	/*
	 * Written plaintext exchanges: a ciphertext twin can finish after its turn
	 * was written (its connection idle until the end: a pool that moved on to
	 * another connection) and must not come back as an exchange of its own.
	 */
	struct written {
		uint32_t tgid;
		uint64_t resp_end_ns;
	} written[XT_WRITTEN];
	unsigned n_written;
	struct probe {   /* a request to an LLM host that was no model call */
		uint32_t tgid;
		uint64_t t;
	} *probes;
	size_t n_probes, cap_probes;
	uint64_t first_ts, dropped, truncated;
	/* last I/O per thread, per tier: a TLS read's socket reads nest inside it */
	struct io_mark {
		uint32_t tid;
		int hdr;      /* it read a TLS record header */
		uint64_t t;   /* when it returned */
		uint64_t at;  /* the time given to it */
	} last_io[2][XT_IO_THREADS];
	struct conn_mark { /* last I/O per connection, per tier: a thread's first I/O's bound */
		uint32_t tgid;
		uint64_t conn;
		uint64_t t; /* when it returned */
	} conn_io[2][1u << XT_IO_CONN_BITS];
	int turns, exchanges, cutting, failed;
	int unwritten, unwritten_err; /* turns whose file could not be written; the first's -errno */
	struct tt_turn **held; /* built, waiting for late records (cfg->hold) */
	size_t n_held, held_cap;
};

/* Takes e into the pending list (on ENOMEM it is freed and the session has failed). */
static void add_exchange(struct xt_session *s, struct xt_exchange *e)
{
	size_t i;

	if (xp_grow((void **)&s->ex, &s->cap_ex, s->n_ex + 1, sizeof(*s->ex))) {
		xt_exchange_free(e);
		s->failed = 1;
		return;
	}
	for (i = s->n_ex; i > 0 && s->ex[i - 1]->req_start_ns > e->req_start_ns; i--)
		s->ex[i] = s->ex[i - 1];
	s->ex[i] = e;
	s->n_ex++;
	s->exchanges++;
}

static void add_probe(struct xt_session *s, uint32_t tgid, uint64_t t)
{
	if (xp_grow((void **)&s->probes, &s->cap_probes, s->n_probes + 1, sizeof(*s->probes))) {
		s->failed = 1;
		return;
	}
	s->probes[s->n_probes++] = (struct probe){ tgid, t };
}

/* Probes of tgid before limit: counted into the turn that ends there, then forgotten. */
static uint64_t take_probes(struct xt_session *s, uint32_t tgid, uint64_t limit)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->n_probes;) {
		if (s->probes[i].tgid == tgid && s->probes[i].t < limit) {
			s->probes[i] = s->probes[--s->n_probes];
			n++;
		} else {
			i++;
		}
	}
	return n;
}

/* From the plaintext tracker: keep what the turn model needs. */
static void add_plain(struct xt_session *s, struct pr_llm_exchange *x)
{
	struct xt_exchange *e = calloc(1, sizeof(*e));

	if (!e) {
		s->failed = 1;
		return;
	}
	e->tgid = s->cur_tgid;
	e->tid = s->cur_tid;
	pr_llm_call_move(&e->call, &x->call);
	e->req_text = x->req_text;
	x->req_text = NULL;
	memcpy(e->host, x->host, sizeof(e->host));
	memcpy(e->path, x->path, sizeof(e->path));
	memcpy(e->retry_after, x->retry_after, sizeof(e->retry_after));
	e->req_start_ns = x->req_start_ns;
	e->req_end_ns = x->req_end_ns;
	/* an answer's first data is its first body byte, not a head read on its own */
	e->resp_start_ns = x->body_start_ns ? x->body_start_ns :
			   x->resp_start_ns ? x->resp_start_ns : x->resp_end_ns;
	e->resp_end_ns = x->resp_end_ns > x->req_end_ns ? x->resp_end_ns : x->req_end_ns;
	e->req_bytes = x->req_bytes;
	e->resp_bytes = x->resp_bytes;
	e->streaming = x->streaming;
	e->truncated = x->truncated;
	e->answered = x->resp_head && !(s->cutting && x->aborted);
	e->aborted = x->aborted && !s->cutting;
	add_exchange(s, e);
}

/* The exchanges the tracker finished with the bytes, loss or close just handed to it. */
static void take_plain(struct xt_session *s, struct pr_llm_conn *c)
{
	for (struct pr_llm_exchange *x; (x = pr_llm_conn_next(c)); pr_llm_exchange_free(x))
		add_plain(s, x);
}

/* Exchanges of the first turn among one agent's pending ones (sel, n of them). */
static size_t first_group(struct xt_exchange *const *sel, size_t n)
{
	uint64_t end = 0;
	int ok = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct xt_exchange *e = sel[i];

		if (i && e->req_start_ns >= end && ok)
			break; /* a new prompt after a usable answer: the next turn */
		if (xt_exchange_ok(e))
			ok = 1;
		if (e->resp_end_ns > end)
			end = e->resp_end_ns;
	}
	return i;
}

static struct xt_agent_info agent_info(const struct xt_session *s, const struct xt_exchange *first)
{
	const struct xt_proc *p = xt_procs_find(&s->procs, first->tgid);
	const char *comm = p && p->comm[0] ? p->comm : NULL;

	return (struct xt_agent_info){
		.pid = first->tgid, .comm = comm, .model = first->call.req_model,
		.name = s->cfg->agent_name ? s->cfg->agent_name : comm ? comm : "agent",
	};
}

/* The agent process's state; NULL on ENOMEM. */
static struct agent *agent_of(struct xt_session *s, uint32_t tgid)
{
	for (size_t i = 0; i < s->n_agents; i++)
		if (s->agents[i].tgid == tgid)
			return &s->agents[i];
	if (xp_grow((void **)&s->agents, &s->cap_agents, s->n_agents + 1, sizeof(*s->agents)))
		return NULL;
	s->agents[s->n_agents] = (struct agent){ tgid, 0 };
	return &s->agents[s->n_agents++];
}

static void set_shadow(struct xt_exchange *e, const struct xt_exchange *h)
{
	e->shadow_req_start_ns = h->req_start_ns;
	e->shadow_resp_end_ns = h->resp_end_ns;
	uint64_t first = h->call.n_tokens ? h->call.token_ns[0] : h->resp_start_ns;

	e->shadow_ttft_ns = first > h->req_end_ns ? first - h->req_end_ns : 0;
	e->setup_start_ns = h->setup_start_ns;
	e->setup_end_ns = h->setup_end_ns;
}

static uint64_t dist(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/*
 * How far apart two exchanges' answers ended: both tiers see the last read
 * alike, while the start can differ (node writes a request into TLS before
 * the handshake is over; the socket carries it later).
 */
static uint64_t end_gap(const struct xt_exchange *a, const struct xt_exchange *b)
{
	uint64_t end = dist(a->resp_end_ns, b->resp_end_ns);
	uint64_t start = dist(a->req_start_ns, b->req_start_ns);

	/*
	 * Or how far apart they started, when that is within XT_SHADOW_START_NS:
	 * a client that reads an answer's tail in one syscall late (descheduled)
	 * ends it later on one tier than on the other.
	 */
	return start < XT_SHADOW_START_NS && start < end ? start : end;
}

/*
 * The one of list[0..n) of x's agent whose answer ended closest to x's, within
 * XT_SHADOW_MATCH_NS, that can be its twin: of the shadows an answered one,
 * else a plaintext exchange not timed yet. n when there is none.
 */
static size_t nearest(struct xt_exchange *const *list, size_t n, const struct xt_exchange *x,
		      int shadows)
{
	uint64_t best_d = XT_SHADOW_MATCH_NS;
	size_t best = n;

	for (size_t i = 0; i < n; i++) {
		const struct xt_exchange *e = list[i];
		int ok = shadows ? e->answered : !e->cipher && !e->shadow_req_start_ns;

		if (e->tgid == x->tgid && ok && end_gap(e, x) < best_d) {
			best = i;
			best_d = end_gap(e, x);
		}
	}
	return best;
}

/* Takes shadow k out of the list; the caller owns it. */
static struct xt_exchange *take_shadow(struct xt_session *s, size_t k)
{
	struct xt_exchange *h = s->shadow[k];

	s->shadow[k] = s->shadow[--s->n_shadow];
	return h;
}

/* The plaintext tier has gone past h (a later request) without its twin. */
static int plain_passed(const struct xt_session *s, const struct xt_exchange *h)
{
	for (size_t i = 0; i < s->n_ex; i++)
		if (!s->ex[i]->cipher && s->ex[i]->tgid == h->tgid &&
		    s->ex[i]->req_start_ns > h->resp_end_ns + XT_SHADOW_MATCH_NS)
			return 1;
	return 0;
}

/*
 * A ciphertext exchange the plaintext tier never saw, on a socket written
 * outside SSL calls (node: the capture can miss a call there), becomes an
 * exchange of its own once the plaintext tier is past it, or at the end.
 * On sockets the plaintext tier reads, an unmatched one is dropped: HTTP/2
 * control frames and TLS alerts look like small exchanges there.
 */
static void promote_shadows(struct xt_session *s, int final)
{
	for (size_t k = 0; k < s->n_shadow;) {
		if (!final && !plain_passed(s, s->shadow[k])) {
			k++;
			continue;
		}
		struct xt_exchange *h = take_shadow(s, k);

		/* unanswered, or on a socket the plaintext tier reads: nothing it lacks */
		if (!h->answered || h->covered)
			xt_exchange_free(h);
		else
			add_exchange(s, h);
	}
}

/* Gives each plaintext exchange the timing the ciphertext tier saw for it. */
static void match_shadows(struct xt_session *s, struct xt_exchange *const *sel, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct xt_exchange *e = sel[i];
		size_t k = e->cipher || e->shadow_req_start_ns ? s->n_shadow :
				nearest(s->shadow, s->n_shadow, e, 1);

		if (k < s->n_shadow) {
			set_shadow(e, s->shadow[k]);
			xt_exchange_free(take_shadow(s, k));
		}
	}
}

/*
 * Completes the turn (cfg->before_write), writes it and frees it. A turn
 * that cannot be written (a full disk) is counted and the session goes on:
 * the next may fit once space is freed. The first failure is named here,
 * the count at the end (xt_session_stats).
 */
static void store_turn(struct xt_session *s, struct tt_turn *d)
{
	char path[4200];
	int rc;

	if (s->cfg->before_write)
		s->cfg->before_write(s->cfg->hook_ctx, d);
	rc = tt_turn_write(d, s->dir, path, sizeof(path));
	if (rc && !s->unwritten++) {
		s->unwritten_err = rc;
		fprintf(stderr, "xperf: %s: cannot write turn %lld: %s\n", path,
			(long long)d->index, strerror(-rc));
	}
	tt_turn_free(d);
}

/* Writes the turn now, or holds it while cfg->hold says late records may come; takes d. */
static int keep_turn(struct xt_session *s, struct tt_turn *d)
{
	if (!s->n_held && !(s->cfg->hold && s->cfg->hold(s->cfg->hook_ctx))) {
		store_turn(s, d);
		return 0;
	}
	if (xp_grow((void **)&s->held, &s->held_cap, s->n_held + 1, sizeof(*s->held))) {
		fprintf(stderr, "xperf: turn %lld: out of memory\n", (long long)d->index);
		tt_turn_free(d);
		return -1;
	}
	s->held[s->n_held++] = d;
	return 0;
}

/* Timelines are kept back to the earliest turn start still to be written. */
static void prune(struct xt_session *s)
{
	uint64_t keep = UINT64_MAX;

	for (size_t i = 0; i < s->n_ex; i++) /* an agent not written yet keeps everything */
		if (!agent_of(s, s->ex[i]->tgid))
			return;
	for (size_t i = 0; i < s->n_agents; i++)
		if (s->agents[i].next_start < keep)
			keep = s->agents[i].next_start;
	xt_sched_prune(s->sched, keep);
}

/* A written plaintext exchange this ciphertext one timed (answers ending together). */
static int twin_written(const struct xt_session *s, const struct xt_exchange *h)
{
	for (unsigned i = 0; i < XT_WRITTEN && i < s->n_written; i++) {
		const struct written *w = &s->written[i];

		if (w->tgid == h->tgid && dist(w->resp_end_ns, h->resp_end_ns) < XT_SHADOW_MATCH_NS)
			return 1;
	}
	return 0;
}

/* Forgets written exchanges: sel's first n leave the pending list. */
static void drop_written(struct xt_session *s, struct xt_exchange *const *sel, size_t n)
{
	size_t out = 0;

	for (size_t i = 0; i < s->n_ex; i++) {
		int written = 0;

		for (size_t k = 0; k < n && !written; k++)
			written = s->ex[i] == sel[k];
		if (written && !s->ex[i]->cipher)
			s->written[s->n_written++ % XT_WRITTEN] =
				(struct written){ s->ex[i]->tgid, s->ex[i]->resp_end_ns };
		if (written)
			xt_exchange_free(s->ex[i]);
		else
			s->ex[out++] = s->ex[i];
	}
	s->n_ex = out;
}

/* Writes one agent's turn: the first n of its pending exchanges (sel, n_sel of them). */
static int write_turn(struct xt_session *s, struct xt_exchange **sel, size_t n, size_t n_sel,
		      uint64_t end_ns, int exited)
{
	const struct xt_proc *p = xt_procs_find(&s->procs, sel[0]->tgid);
	struct agent *a = agent_of(s, sel[0]->tgid);
	uint64_t limit = n < n_sel ? sel[n]->req_start_ns : end_ns;
	struct xt_turn_in in = {
		.session_id = s->cfg->session_id,
		.tier = "plaintext",
		.index = s->turns + 1, .limit_ns = limit, .last = n == n_sel, .agent_exited = exited,
		.ex = sel, .n_ex = n, .next = n < n_sel ? sel[n] : NULL,
		.capture_payloads = s->cfg->llm.capture_payloads,
		.procs = &s->procs, .sched = s->sched, .seen = &s->seen,
		.dropped = s->dropped, .agent = agent_info(s, sel[0]),
	};
	struct xp_clock_anchor now;
	uint64_t end;

	if (!a)
		return -1;
	if (!s->cfg->no_clock_anchor) {
		xp_clock_anchor_now(&now);
		in.anchor = &now;
	}
	if (!a->next_start)
		a->next_start = p && p->exec_ns && p->exec_ns <= sel[0]->req_start_ns ? p->exec_ns :
											 s->first_ts;
	in.start_ns = a->next_start;
	in.non_llm_requests = take_probes(s, sel[0]->tgid, limit);
	for (size_t i = 0; i < n; i++) {
		in.truncated += (uint64_t)sel[i]->truncated;
		if (sel[i]->cipher)
			in.tier = "ciphertext";
	}
	match_shadows(s, sel, n);
	struct tt_turn *d = xt_turn_build(&in, &end);

	if (!d)
		fprintf(stderr, "xperf: turn %d: out of memory\n", in.index);
	if (!d || keep_turn(s, d))
		return -1;
	s->turns++;
	a->next_start = end;
	drop_written(s, sel, n);
	prune(s);
	return 0;
}

/* tgid's pending exchanges into sel (s->n_ex + 1 slots); how many. */
static size_t select_agent(const struct xt_session *s, uint32_t tgid, struct xt_exchange **sel)
{
	size_t n_sel = 0;

	for (size_t i = 0; i < s->n_ex; i++)
		if (s->ex[i]->tgid == tgid)
			sel[n_sel++] = s->ex[i];
	return n_sel;
}

/*
 * Writes the first turn of one agent if it is over (final: whatever is
 * left). 1 when a turn was written, 0 when none was, -1 on error.
 */
static int flush_agent(struct xt_session *s, uint32_t tgid, int final, uint64_t end_ns, int exited)
{
	struct xt_exchange **sel = malloc((s->n_ex + 1) * sizeof(*sel));
	size_t n_sel, n;
	int rc = 0;

	if (!sel)
		return -1;
	n_sel = select_agent(s, tgid, sel);
	n = first_group(sel, n_sel);
	if (n < n_sel && s->plain_tgid[tgid % XT_PLAIN_PROCS] != tgid) {
		/*
		 * An agent timed from sockets alone: its exchanges of this turn still
		 * open end now. (Where plaintext is seen, the ciphertext tier only lends
		 * timing, and plaintext held back by the TLS module may come later.)
		 */
		size_t before = s->n_ex;

		xt_cipher_settle(s->cipher, tgid, sel[n]->req_start_ns);
		rc = s->n_ex != before; /* the pending list changed: group again */
	}
	if (!rc && (n < n_sel || final))
		rc = write_turn(s, sel, n, n_sel, end_ns, exited) ? -1 : 1;
	free(sel);
	return rc;
}

/* Writes every turn known to be over; at the end (final) the rest too. */
static int flush(struct xt_session *s, int final, uint64_t end_ns, int exited)
{
	int rc = 1;

	promote_shadows(s, final);
	while (rc == 1) {
		rc = 0;
		for (size_t i = 0; i < s->n_ex && !rc; i++)
			rc = flush_agent(s, s->ex[i]->tgid, final, end_ns, exited);
	}
	return rc;
}

static struct conn *conn_get(struct xt_session *s, uint32_t tgid, uint64_t id)
{
	for (size_t i = 0; i < s->n_conns; i++)
		if (s->conns[i].tgid == tgid && s->conns[i].id == id)
			return &s->conns[i];
	if (xp_grow((void **)&s->conns, &s->cap_conns, s->n_conns + 1, sizeof(*s->conns)))
		return NULL;
	struct conn *c = &s->conns[s->n_conns];

	*c = (struct conn){ .tgid = tgid, .id = id, .c = pr_llm_conn_new(&s->cfg->llm) };
	if (!c->c)
		return NULL;
	s->n_conns++;
	return c;
}

/* Plaintext of one SSL call: gaps in the stream offsets are bytes the capture lost. */
static void feed_tls(struct xt_session *s, const struct xt_event *ev)
{
	struct conn *c = conn_get(s, ev->tgid, ev->conn);
	enum pr_dir dir = ev->dir == XT_WRITE ? XP_DIR_REQUEST : XP_DIR_RESPONSE;
	const char *d = ev->data;
	uint32_t n = ev->len;

	if (!c) {
		s->failed = 1;
		return;
	}
	uint64_t *pos = &c->pos[ev->dir];

	if (ev->pos > *pos) {
		pr_llm_conn_lost(c->c, dir, (size_t)(ev->pos - *pos), ev->ts_ns);
		take_plain(s, c->c);
		s->truncated++;
	} else if (ev->pos < *pos) { /* already seen (a repeated record): skip the overlap */
		uint64_t skip = *pos - ev->pos < n ? *pos - ev->pos : n;

		d += skip;
		n -= (uint32_t)skip;
	}
	unsigned other = c->c->other_requests;

	if (n)
		pr_llm_conn_feed(c->c, dir, d, n, ev->ts_ns);
	take_plain(s, c->c);
	for (; other < c->c->other_requests; other++)
		add_probe(s, ev->tgid, ev->ts_ns);
	if (ev->pos + ev->len > *pos)
		*pos = ev->pos + ev->len;
	/* A call cut at the payload cap: its tail is a gap now, not when the next call comes. */
	if (ev->pos + ev->len + ev->lost > *pos) {
		pr_llm_conn_lost(c->c, dir, (size_t)(ev->pos + ev->len + ev->lost - *pos), ev->ts_ns);
		take_plain(s, c->c);
		s->truncated++;
		*pos = ev->pos + ev->len + ev->lost;
	}
}

static void close_conn(struct xt_session *s, size_t i, uint64_t t)
{
	pr_llm_conn_close(s->conns[i].c, t);
	take_plain(s, s->conns[i].c);
	pr_llm_conn_free(s->conns[i].c);
	s->conns[i] = s->conns[--s->n_conns];
}

/*
 * Ciphertext-tier exchanges: the second opinion on a plaintext one (matched
 * now, or when its turn is written if its socket moved data inside SSL calls
 * or its process has a plaintext tier at all: node encrypts into memory and
 * writes the socket outside SSL calls), or an exchange of its own (stacks
 * without plaintext: BoringSSL in a static binary).
 */
static void on_cipher_exchange(void *ctx, struct xt_exchange *e, int covered)
{
	struct xt_session *s = ctx;
	/* the pending plaintext exchange it times, if any */
	size_t k = s->cfg->ciphertext || !e->answered ? s->n_ex : nearest(s->ex, s->n_ex, e, 0);
	struct xt_exchange *twin = k < s->n_ex ? s->ex[k] : NULL;

	int plain = (covered || s->plain_tgid[e->tgid % XT_PLAIN_PROCS] == e->tgid) &&
		    !s->cfg->ciphertext;

	if (twin || e->probe || (plain && twin_written(s, e))) {
		if (twin)
			set_shadow(twin, e);
		else if (!plain) /* the plaintext tier counts the probes it sees itself */
			add_probe(s, e->tgid, e->req_start_ns);
		xt_exchange_free(e);
		return;
	}
	e->covered = covered;
	/* a process whose plaintext is seen has its exchanges there (node: not covered) */
	if (plain) {
		if (xp_grow((void **)&s->shadow, &s->cap_shadow, s->n_shadow + 1,
			    sizeof(*s->shadow))) {
			xt_exchange_free(e);
			return;
		}
		s->shadow[s->n_shadow++] = e;
		return;
	}
	add_exchange(s, e);
}

struct xt_session *xt_session_new(const struct xt_config *cfg)
{
	struct xt_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cfg = cfg;
	snprintf(s->dir, sizeof(s->dir), "%s/%s", cfg->out_dir, cfg->session_id);
	s->procs.keep_bodies = cfg->llm.capture_payloads;
	s->procs.max = cfg->max_procs;
	s->sched = xt_sched_new(cfg->max_sched_marks);
	s->cipher = xt_cipher_new(cfg->cipher_hosts, on_cipher_exchange, s);
	if (!s->sched || !s->cipher) {
		xt_session_free(s);
		return NULL;
	}
	return s;
}

static void route(struct xt_session *s, const struct xt_event *ev)
{
	switch (ev->kind) {
	case XT_FORK:
	case XT_EXEC:
	case XT_EXIT:
		s->failed |= xt_procs_event(&s->procs, ev);
		break;
	case XT_SCHED:
		s->failed |= xt_sched_add(s->sched, ev);
		break;
	case XT_TLS:
		if (!s->cfg->ciphertext) {
			s->plain_tgid[ev->tgid % XT_PLAIN_PROCS] = ev->tgid;
			feed_tls(s, ev);
		}
		break;
	case XT_TLS_CLOSE:
		for (size_t i = 0; i < s->n_conns; i++)
			if (s->conns[i].tgid == ev->tgid && s->conns[i].id == ev->conn)
				close_conn(s, i, ev->ts_ns);
		break;
	default:
		xt_cipher_event(s->cipher, ev);
		break;
	}
}

/*
 * A connection's slot in conn_io. Multiplicative hashing: an SSL* is 16-byte
 * aligned, so its low bits alone (conn % 64) would give 4 slots of 64.
 */
static unsigned conn_slot(uint64_t conn)
{
	return (unsigned)((conn * 0x9e3779b97f4a7c15ull) >> (64 - XT_IO_CONN_BITS));
}

/*
 * A read is timed by the arrival of its data: the wakeup that ended the
 * thread's wait for it, whether it slept inside the read or (non-blocking
 * sockets) in poll() before it; never earlier than the thread's previous I/O
 * of the same tier or, on a thread's first, the connection's previous I/O: a
 * Go client's read goroutine moves to another thread, and bounded by that
 * read's entry (or, on the socket hooks, its return) its first token came
 * with the run-queue wait (2.5 ms at load 5 on 2 cores). A read that did not
 * wait, and a write, are timed by their start: their return can come much
 * later when the thread is preempted on the way out.
 */
static uint64_t io_time(struct xt_session *s, const struct xt_event *ev)
{
	struct io_mark *m = &s->last_io[ev->kind == XT_TLS][ev->tid % XT_IO_THREADS];
	struct conn_mark *c = &s->conn_io[ev->kind == XT_TLS][conn_slot(ev->conn)];
	int same = m->tid == ev->tid && m->t;
	int conn_seen = c->tgid == ev->tgid && c->conn == ev->conn && c->t;
	uint64_t from = same ? m->t : conn_seen ? c->t : ev->call_ns;
	uint64_t t = 0;

	if (ev->dir == XT_READ && from)
		t = xt_sched_wakeup(s->sched, ev->tid, from, ev->ts_ns);
	/* a TLS record body read right after its 5-byte header came with it */
	if (!t && same && ev->kind == XT_SOCK && ev->dir == XT_READ && m->hdr)
		t = m->at;
	if (!t)
		t = ev->call_ns && ev->call_ns <= ev->ts_ns ? ev->call_ns : ev->ts_ns;
	m->tid = ev->tid;
	m->t = ev->ts_ns;
	m->at = t;
	m->hdr = ev->kind == XT_SOCK && ev->dir == XT_READ && ev->len == XT_TLS_HEADER;
	*c = (struct conn_mark){ ev->tgid, ev->conn, ev->ts_ns };
	return t;
}

int xt_session_event(struct xt_session *s, const struct xt_event *ev)
{
	struct xt_event adj = *ev;

	s->cur_tgid = ev->tgid;
	s->cur_tid = ev->tid;
	if (ev->kind == XT_TLS || ev->kind == XT_SOCK)
		adj.ts_ns = io_time(s, ev);
	/* from the time given to the event: a write's is its call's entry, before its record */
	if (!s->first_ts || adj.ts_ns < s->first_ts)
		s->first_ts = adj.ts_ns;
	route(s, &adj);
	if (s->failed) {
		fprintf(stderr, "xperf: out of memory while assembling turns\n");
		return -1;
	}
	return flush(s, 0, 0, 0);
}

void xt_session_set_dropped(struct xt_session *s, uint64_t dropped)
{
	s->dropped = dropped;
}

int xt_session_finish(struct xt_session *s, uint64_t end_ns, int agent_exited)
{
	s->cutting = !agent_exited;
	while (s->n_conns)
		close_conn(s, s->n_conns - 1, end_ns);
	xt_cipher_flush(s->cipher, end_ns, s->cutting);
	int rc = flush(s, 1, end_ns, agent_exited);

	for (size_t i = 0; i < s->n_held; i++)
		store_turn(s, s->held[i]);
	s->n_held = 0;
	return rc || s->unwritten ? -1 : 0;
}

struct xt_session_stats xt_session_stats(const struct xt_session *s)
{
	return (struct xt_session_stats){
		.turns = s->turns, .exchanges = s->exchanges, .unwritten = s->unwritten,
		.unwritten_err = s->unwritten_err, .procs_evicted = s->procs.evicted,
		.sched_evicted = xt_sched_evicted(s->sched), .dir = s->dir,
	};
}

void xt_session_free(struct xt_session *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_conns; i++)
		pr_llm_conn_free(s->conns[i].c);
	free(s->conns);
	for (size_t i = 0; i < s->n_ex; i++)
		xt_exchange_free(s->ex[i]);
	free(s->ex);
	for (size_t i = 0; i < s->n_shadow; i++)
		xt_exchange_free(s->shadow[i]);
	free(s->shadow);
	free(s->agents);
	free(s->probes);
	xt_cipher_free(s->cipher);
	xt_sched_free(s->sched);
	xt_procs_free(&s->procs);
	xt_cmdset_free(&s->seen);
	for (size_t i = 0; i < s->n_held; i++)
		tt_turn_free(s->held[i]);
	free(s->held);
	free(s);
}
