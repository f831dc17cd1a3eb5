// SPDX-License-Identifier: MIT
/*
 * locate_check.c - see locate_check.h. Connections are few (an agent's
 * handful of keep-alive connections), so they live in a flat array; the
 * sends of the last SEND_RING socket writes are kept to credit sends
 * nested in an SSL_write, which arrive before its record.
 */
#include "userspace/locate_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/sock.h"
#include "bpf/tls.h"
#include "lib/grow.h"

#define SEND_RING 256
#define MAX_IDS 0x10000

struct dir_state {
	bool passed, checking;
	unsigned int unjoined;	/* read: first calls in a row not joined to a socket */
	uint64_t sock_id;	/* write: the socket its ciphertext went out on */
	struct xk_hdr **held;
	size_t nheld, cap;
	uint32_t tid;
	uint64_t need, got, since_ns, deadline_ns;
};

struct conn {
	uint32_t tgid;
	uint16_t id;
	uint64_t start_ns, ssl;
	uint64_t probed_ns;	/* the file's probes cover this process since (probed_since) */
	struct dir_state d[2];	/* by enum xk_tls_dir */
};

struct send {
	uint32_t tgid, tid;
	uint64_t ts_ns, len, sock_id;
};

struct recv_total {
	uint32_t tgid;
	bool connected;		/* its connect/accept was seen */
	uint64_t sock_id, bytes;
	uint64_t connect_ns;	/* when */
};

struct xpc_locate_check {
	struct xpc_lc_hooks hooks;
	struct xpc_lc_counts counts;
	uint8_t state[MAX_IDS];	/* enum xpc_lc_state by file id */
	struct conn *conns;
	size_t nconns, capconns;
	struct recv_total *recvs;
	size_t nrecvs, caprecvs;
	struct send sends[SEND_RING];
	size_t nsends;
	uint64_t held_bytes;
};

static const char *const fn_names[] = { "SSL_write", "SSL_read" };

struct xpc_locate_check *xpc_locate_check_new(const struct xpc_lc_hooks *hooks)
{
	struct xpc_locate_check *lc = calloc(1, sizeof(*lc));

	if (lc)
		lc->hooks = *hooks;
	return lc;
}

/* Let d's held records go: to the user's callback (deliver), else nowhere, counted withheld. */
static void let_go(struct xpc_locate_check *lc, struct dir_state *d, bool deliver)
{
	for (size_t i = 0; i < d->nheld; i++) {
		if (deliver && lc->hooks.release)
			lc->hooks.release(lc->hooks.ctx, d->held[i]);
		lc->held_bytes -= d->held[i]->size;
		free(d->held[i]);
	}
	if (!deliver)
		lc->counts.withheld += d->nheld;
	free(d->held);
	d->held = NULL;
	d->nheld = d->cap = 0;
}

void xpc_locate_check_free(struct xpc_locate_check *lc)
{
	if (!lc)
		return;
	for (size_t i = 0; i < lc->nconns; i++)
		for (int k = 0; k < 2; k++)
			let_go(lc, &lc->conns[i].d[k], false);
	free(lc->conns);
	free(lc->recvs);
	free(lc);
}

enum xpc_lc_state xpc_locate_check_state(const struct xpc_locate_check *lc, unsigned int id)
{
	return id < MAX_IDS ? (enum xpc_lc_state)lc->state[id] : XPC_LC_UNCHECKED;
}

void xpc_locate_check_counts(const struct xpc_locate_check *lc, struct xpc_lc_counts *out)
{
	uint64_t held = 0;

	for (size_t i = 0; i < lc->nconns; i++)
		held += lc->conns[i].d[0].nheld + lc->conns[i].d[1].nheld;
	*out = lc->counts;
	out->withheld += held;	/* still held now: never delivered if the run ends */
}

static bool http1_request(const uint8_t *p, size_t n)
{
	size_t i = 0, m;

	while (i < n && i < 16 && p[i] >= 'A' && p[i] <= 'Z')
		i++;
	if (i < 3 || i >= n || p[i++] != ' ')
		return false;
	for (m = i; i < n && p[i] > ' ' && p[i] < 0x7f; i++)
		;
	if (i == m || n - i < 11 || p[i] != ' ')
		return false;
	return !memcmp(p + i + 1, "HTTP/1.", 7) && (p[i + 8] == '0' || p[i + 8] == '1') &&
	       p[i + 9] == '\r' && p[i + 10] == '\n';
}

bool xpc_lc_http_start(const uint8_t *p, size_t n, bool is_read)
{
	static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

	if (!is_read)
		return (n >= sizeof(preface) - 1 && !memcmp(p, preface, sizeof(preface) - 1)) ||
		       http1_request(p, n);
	if (n >= 12 && !memcmp(p, "HTTP/1.", 7) && (p[7] == '0' || p[7] == '1') && p[8] == ' ' &&
	    p[9] >= '1' && p[9] <= '5' && p[10] >= '0' && p[10] <= '9' && p[11] >= '0' &&
	    p[11] <= '9')
		return true;
	/* HTTP/2: the server's first frame is SETTINGS (type 4) on stream 0 */
	return n >= 9 && p[3] == 4 && !(p[4] & ~1) && !(p[5] & 0x7f) && !p[6] && !p[7] &&
	       !p[8] && (((uint32_t)p[0] << 16 | p[1] << 8 | p[2]) % 6) == 0;
}

static void fail(struct xpc_locate_check *lc, unsigned int id, int dir, const char *check,
		 const char *detail)
{
	if (lc->state[id] == XPC_LC_FAILED)
		return;
	lc->state[id] = XPC_LC_FAILED;
	for (size_t i = 0; i < lc->nconns; i++)
		if (lc->conns[i].id == id)
			for (int k = 0; k < 2; k++)
				let_go(lc, &lc->conns[i].d[k], false);
	if (lc->hooks.failed)
		lc->hooks.failed(lc->hooks.ctx, id, fn_names[dir], check, detail);
}

static void pass(struct xpc_locate_check *lc, struct conn *c, int dir)
{
	struct dir_state *d = &c->d[dir];

	d->passed = true;
	d->checking = false;
	lc->counts.passed++;
	if (lc->state[c->id] == XPC_LC_UNCHECKED)
		lc->state[c->id] = XPC_LC_TRUSTED;
	let_go(lc, d, true);
}

static enum xpc_lc_verdict hold(struct xpc_locate_check *lc, struct dir_state *d,
				const struct xk_hdr *rec)
{
	struct xk_hdr *copy;

	if (lc->held_bytes + rec->size > XPC_LC_HELD_MAX) {
		lc->counts.held_over++;
		return XPC_LC_DROP;
	}
	if (xp_grow((void **)&d->held, &d->cap, d->nheld + 1, sizeof(*d->held)))
		return XPC_LC_DROP;
	copy = malloc(rec->size);
	if (!copy)
		return XPC_LC_DROP;
	memcpy(copy, rec, rec->size);
	d->held[d->nheld++] = copy;
	lc->held_bytes += rec->size;
	return XPC_LC_HOLD;
}

static struct conn *conn_of(struct xpc_locate_check *lc, const struct xk_tls_data *t)
{
	for (size_t i = 0; i < lc->nconns; i++) {
		struct conn *c = &lc->conns[i];

		if (c->tgid == t->hdr.tgid && c->ssl == t->ssl && c->start_ns == t->hdr.start_ns)
			return c;
	}
	if (xp_grow((void **)&lc->conns, &lc->capconns, lc->nconns + 1, sizeof(*lc->conns)))
		return NULL;
	lc->conns[lc->nconns] = (struct conn){ .tgid = t->hdr.tgid, .id = t->located,
					       .start_ns = t->hdr.start_ns, .ssl = t->ssl };
	if (lc->hooks.probed_since)
		lc->conns[lc->nconns].probed_ns =
			lc->hooks.probed_since(lc->hooks.ctx, t->located, t->hdr.tgid);
	return &lc->conns[lc->nconns++];
}

static struct recv_total *recv_of(struct xpc_locate_check *lc, uint32_t tgid, uint64_t sock_id)
{
	for (size_t i = 0; i < lc->nrecvs; i++)
		if (lc->recvs[i].tgid == tgid && lc->recvs[i].sock_id == sock_id)
			return &lc->recvs[i];
	if (xp_grow((void **)&lc->recvs, &lc->caprecvs, lc->nrecvs + 1, sizeof(*lc->recvs)))
		return NULL;
	lc->recvs[lc->nrecvs] = (struct recv_total){ .tgid = tgid, .sock_id = sock_id };
	return &lc->recvs[lc->nrecvs++];
}

/* Bytes thread (tgid, tid) sent over TCP since ts_ns, from the recent sends; *sock: the last socket. */
static uint64_t sent_since(const struct xpc_locate_check *lc, uint32_t tgid, uint32_t tid,
			   uint64_t ts_ns, uint64_t *sock)
{
	size_t n = lc->nsends < SEND_RING ? lc->nsends : SEND_RING;
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++) {
		const struct send *s = &lc->sends[i];

		if (s->tgid == tgid && s->tid == tid && s->ts_ns >= ts_ns) {
			sum += s->len;
			*sock = s->sock_id;
		}
	}
	return sum;
}

/* Whether connection c's socket was opened after its probes were in place: seen from byte 0. */
static bool seen_from_start(struct xpc_locate_check *lc, const struct conn *c, uint64_t sock_id)
{
	for (size_t i = 0; i < lc->nrecvs; i++)
		if (lc->recvs[i].tgid == c->tgid && lc->recvs[i].sock_id == sock_id)
			return lc->recvs[i].connected && lc->recvs[i].connect_ns > c->probed_ns;
	return false;
}

/*
 * The HTTP check of a direction whose socket agreement holds: t is its
 * first call's first record, on socket sock_id. A connection xperf saw
 * from its start must begin with HTTP, or the file fails. One it joined
 * mid-stream (attach --pid to a running agent) may be inside a body: the
 * call is dropped and the next call tries again, the file not blamed.
 */
static enum xpc_lc_verdict http_check(struct xpc_locate_check *lc, struct conn *c, int dir,
				      const struct xk_tls_data *t, uint64_t sock_id)
{
	if (xpc_lc_http_start((const uint8_t *)t->data, t->len, dir)) {
		pass(lc, c, dir);
		return XPC_LC_PASS;
	}
	if (!seen_from_start(lc, c, sock_id)) {
		let_go(lc, &c->d[dir], false);
		memset(&c->d[dir], 0, sizeof(c->d[dir]));
		return XPC_LC_DROP;
	}
	fail(lc, c->id, dir, "http",
	     dir ? "first read is not an HTTP/1.1 status line or HTTP/2 SETTINGS frame"
		 : "first write is not an HTTP/1.1 request line or the HTTP/2 preface");
	return XPC_LC_DROP;
}

/* A write's ciphertext went out: its HTTP check, on the held first record. */
static void judge(struct xpc_locate_check *lc, struct conn *c, int dir)
{
	struct dir_state *d = &c->d[dir];

	d->checking = false;
	if (d->nheld)
		http_check(lc, c, dir, (const struct xk_tls_data *)d->held[0], d->sock_id);
	else
		pass(lc, c, dir);
}

static void on_sock(struct xpc_locate_check *lc, const struct xk_sock_data *s)
{
	if (s->dir == XP_SOCK_RECV) {
		struct recv_total *r = recv_of(lc, s->hdr.tgid, s->sock_id);

		if (r)
			r->bytes += s->len;
		return;
	}
	lc->sends[lc->nsends++ % SEND_RING] =
		(struct send){ .tgid = s->hdr.tgid, .tid = s->hdr.tid, .ts_ns = s->hdr.ts_ns, .len = s->len, .sock_id = s->sock_id };
	for (size_t i = 0; i < lc->nconns; i++) {
		struct conn *c = &lc->conns[i];
		struct dir_state *d = &c->d[XP_TLS_WRITE];

		if (!d->checking || c->tgid != s->hdr.tgid || d->tid != s->hdr.tid ||
		    s->hdr.ts_ns < d->since_ns)
			continue;
		d->got += s->len;
		d->sock_id = s->sock_id;
		if (d->got >= d->need)
			judge(lc, c, XP_TLS_WRITE);
	}
}

static void on_connect(struct xpc_locate_check *lc, const struct xk_sock_conn *k)
{
	struct recv_total *r = recv_of(lc, k->hdr.tgid, k->sock_id);

	if (r) {
		r->connected = true;
		r->connect_ns = k->hdr.ts_ns;
		r->bytes = 0;	/* a new connection on a reused socket number */
	}
}

/* Writes whose ciphertext never went out within the window fail. */
static void expire(struct xpc_locate_check *lc, uint64_t now_ns)
{
	char detail[160];

	for (size_t i = 0; i < lc->nconns; i++) {
		struct dir_state *d = &lc->conns[i].d[XP_TLS_WRITE];

		if (!d->checking || now_ns <= d->deadline_ns)
			continue;
		snprintf(detail, sizeof(detail),
			 "thread %u sent %llu bytes over TCP within 200 ms of the call (or before "
			 "the run ended), want >= %llu",
			 d->tid, (unsigned long long)d->got, (unsigned long long)d->need);
		d->checking = false;
		fail(lc, lc->conns[i].id, XP_TLS_WRITE, "socket", detail);
	}
}

/* The first call of a direction on a connection: socket, then HTTP checks. */
static enum xpc_lc_verdict first_call(struct xpc_locate_check *lc, struct conn *c,
				      const struct xk_tls_data *t)
{
	int dir = t->dir == XP_TLS_READ;
	struct dir_state *d = &c->d[dir];
	struct recv_total *r;
	char detail[160];

	if (t->offset != 0 || (t->flags & XP_TLS_COPY_FAIL))
		return lc->counts.withheld++, XPC_LC_DROP;	/* the rest of a skipped call */
	if (dir == XP_TLS_READ) {
		if (!t->sock_id && ++d->unjoined >= XPC_LC_UNJOINED_MAX) {
			snprintf(detail, sizeof(detail), "%u reads in a row not joined to a TCP socket",
				 d->unjoined);
			fail(lc, c->id, dir, "socket", detail);
			return XPC_LC_DROP;
		}
		if (!t->sock_id)	/* not joined to a socket (yet): try the next call */
			return lc->counts.withheld++, XPC_LC_DROP;
		r = recv_of(lc, t->hdr.tgid, t->sock_id);
		if (r && r->bytes < t->pos + t->call_len + XPC_LC_TLS_OVERHEAD &&
		    seen_from_start(lc, c, t->sock_id)) {
			snprintf(detail, sizeof(detail),
				 "%u plaintext bytes at %llu, socket %llu received %llu",
				 t->call_len, (unsigned long long)t->pos,
				 (unsigned long long)t->sock_id, (unsigned long long)r->bytes);
			fail(lc, c->id, dir, "socket", detail);
			return XPC_LC_DROP;
		}
		if (!r || r->bytes < t->call_len + XPC_LC_TLS_OVERHEAD)
			return lc->counts.withheld++,
			       XPC_LC_DROP; /* mid-stream: too little seen yet */
		return http_check(lc, c, dir, t, t->sock_id);
	}
	d->checking = true;
	d->tid = t->hdr.tid;
	d->since_ns = t->call_ns;
	d->deadline_ns = t->hdr.ts_ns + XPC_LC_SEND_WINDOW_NS;
	d->need = (uint64_t)t->call_len + XPC_LC_TLS_OVERHEAD;
	d->got = sent_since(lc, t->hdr.tgid, t->hdr.tid, t->call_ns, &d->sock_id);
	if (hold(lc, d, &t->hdr) != XPC_LC_HOLD) {
		d->checking = false;
		return XPC_LC_DROP;
	}
	/* Held even when its ciphertext already went out: judge() releases the copy. */
	if (d->got >= d->need)
		judge(lc, c, dir);
	return XPC_LC_HOLD;
}

static enum xpc_lc_verdict on_tls(struct xpc_locate_check *lc, const struct xk_tls_data *t)
{
	struct conn *c;
	struct dir_state *d;

	if (lc->state[t->located] == XPC_LC_FAILED)
		return lc->counts.withheld++, XPC_LC_DROP;
	c = conn_of(lc, t);
	if (!c)
		return lc->counts.withheld++, XPC_LC_DROP;
	if ((t->flags & XP_TLS_NEW_CONN) && t->pos == 0 && (c->d[0].passed || c->d[1].passed)) {
		for (int k = 0; k < 2; k++) {	/* the SSL* now serves a new connection */
			let_go(lc, &c->d[k], false);
			memset(&c->d[k], 0, sizeof(c->d[k]));
		}
	}
	d = &c->d[t->dir == XP_TLS_READ];
	if (d->passed)
		return XPC_LC_PASS;
	if (d->checking)
		return hold(lc, d, &t->hdr);
	return first_call(lc, c, t);
}

void xpc_locate_check_finish(struct xpc_locate_check *lc)
{
	for (size_t i = 0; i < lc->nconns; i++) {
		struct conn *c = &lc->conns[i];

		if (c->d[XP_TLS_WRITE].checking && lc->state[c->id] == XPC_LC_TRUSTED) {
			let_go(lc, &c->d[XP_TLS_WRITE], false);
			c->d[XP_TLS_WRITE].checking = false;
		}
	}
	expire(lc, UINT64_MAX);
}

enum xpc_lc_verdict xpc_locate_check_record(struct xpc_locate_check *lc, const struct xk_hdr *rec)
{
	const struct xk_tls_data *t = (const void *)rec;

	expire(lc, rec->ts_ns);
	if (rec->type == XP_EV_SOCK_DATA && rec->size >= sizeof(struct xk_sock_data)) {
		on_sock(lc, (const void *)rec);
		return XPC_LC_PASS;
	}
	if ((rec->type == XP_EV_SOCK_CONNECT || rec->type == XP_EV_SOCK_ACCEPT) &&
	    rec->size >= sizeof(struct xk_sock_conn)) {
		on_connect(lc, (const void *)rec);
		return XPC_LC_PASS;
	}
	if (rec->type != XP_EV_TLS_DATA || rec->size < offsetof(struct xk_tls_data, data) ||
	    !t->located)
		return XPC_LC_PASS;
	if (t->len > rec->size - offsetof(struct xk_tls_data, data) || t->dir > XP_TLS_READ)
		return lc->counts.withheld++, XPC_LC_DROP;
	return on_tls(lc, t);
}
