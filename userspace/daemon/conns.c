// SPDX-License-Identifier: MIT
/*
 * conns.c - an agent's connection table (conns.h): a hash of
 * (tier, tgid, id) for lookup and, per tier, a list in order of last use, so
 * finding, refreshing and evicting are O(1); an exit walks the lists once.
 */
#include "userspace/daemon/conns.h"

#include <stdlib.h>
#include <string.h>

#include "bpf/sock.h"
#include "bpf/tls.h"

#define BUCKETS_MAX 4096

const char *const xpd_conn_tier_names[XPD_CONN_TIERS] = { "tls", "socket" };

struct conn {
	uint8_t tier;
	uint32_t tgid;
	uint64_t start_ns;		/* of process tgid: the close record carries it */
	uint64_t id;			/* SSL* or socket inode */
	struct conn *hnext;		/* same bucket */
	struct conn *newer, *older;	/* order of last use */
};

struct xpd_conns {
	unsigned int max, nbuckets;
	struct conn **bucket;
	struct {
		struct conn *newest, *oldest;
	} lru[XPD_CONN_TIERS];		/* each tier capped on its own */
	struct xpd_conn_counts n;
};

/* What rec does to the table. */
enum op { OP_NONE, OP_USE, OP_CLOSE, OP_EXIT };

static enum op classify(const struct xk_hdr *rec, uint8_t *tier, uint64_t *id)
{
	switch (rec->type) {
	case XP_EV_TLS_DATA:
	case XP_EV_TLS_FREE:
		if (rec->size < sizeof(*rec) + sizeof(__u64))
			return OP_NONE;
		*tier = XPD_CONN_TLS;
		*id = ((const struct xk_tls_free *)rec)->ssl;	/* first field after hdr in both */
		return rec->type == XP_EV_TLS_FREE ? OP_CLOSE : OP_USE;
	case XP_EV_SOCK_CONNECT:
	case XP_EV_SOCK_ACCEPT:
	case XP_EV_SOCK_DATA:
	case XP_EV_SOCK_SNI:
	case XP_EV_SOCK_CLOSE:
		if (rec->size < sizeof(*rec) + sizeof(__u64))
			return OP_NONE;
		*tier = XPD_CONN_SOCKET;
		*id = ((const struct xk_sock_conn *)rec)->sock_id;	/* likewise */
		return rec->type == XP_EV_SOCK_CLOSE ? OP_CLOSE : OP_USE;
	case XP_EV_EXIT:
		return OP_EXIT;
	default:
		return OP_NONE;
	}
}

static struct conn **slot(struct xpd_conns *t, uint8_t tier, uint32_t tgid, uint64_t id)
{
	uint64_t h = (id ^ ((uint64_t)tgid << 32 | tier)) * 0x9e3779b97f4a7c15ull;
	struct conn **p = &t->bucket[(h >> 32) & (t->nbuckets - 1)];

	while (*p && ((*p)->tier != tier || (*p)->tgid != tgid || (*p)->id != id))
		p = &(*p)->hnext;
	return p;
}

static void unlink_lru(struct xpd_conns *t, struct conn *c)
{
	*(c->newer ? &c->newer->older : &t->lru[c->tier].newest) = c->older;
	*(c->older ? &c->older->newer : &t->lru[c->tier].oldest) = c->newer;
}

static void push_newest(struct xpd_conns *t, struct conn *c)
{
	struct conn **newest = &t->lru[c->tier].newest;

	c->newer = NULL;
	c->older = *newest;
	*(*newest ? &(*newest)->newer : &t->lru[c->tier].oldest) = c;
	*newest = c;
}

static void forget(struct xpd_conns *t, struct conn *c)
{
	struct conn **p = slot(t, c->tier, c->tgid, c->id);

	*p = c->hnext;
	unlink_lru(t, c);
	t->n.open[c->tier]--;
	free(c);
}

/* A close record of c, stamped now, for the session. */
static int close_conn(struct xpd_conns *t, struct conn *c, uint64_t now, xpd_conns_emit emit,
		      void *ctx)
{
	union {
		struct xk_tls_free tls;
		struct xk_sock_conn sock;
	} r;
	struct xk_hdr *h = &r.tls.hdr;

	memset(&r, 0, sizeof(r));
	h->ts_ns = now;
	h->tgid = h->tid = c->tgid;
	h->start_ns = c->start_ns;
	if (c->tier == XPD_CONN_TLS) {
		h->type = XP_EV_TLS_FREE;
		h->size = sizeof(r.tls);
		r.tls.ssl = c->id;
	} else {
		h->type = XP_EV_SOCK_CLOSE;
		h->size = sizeof(r.sock);
		r.sock.sock_id = c->id;
		r.sock.fd = -1;
	}
	forget(t, c);
	return emit(ctx, h);
}

static int enter(struct xpd_conns *t, const struct xk_hdr *rec, uint8_t tier, uint64_t id,
		 xpd_conns_emit emit, void *ctx)
{
	struct conn *c;
	int err = 0;

	if (t->n.open[tier] >= t->max) {
		t->n.evicted[tier]++;
		err = close_conn(t, t->lru[tier].oldest, rec->ts_ns, emit, ctx);
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return err;	/* untracked: the session still gets its records */
	c->tier = tier;
	c->tgid = rec->tgid;
	c->start_ns = rec->start_ns;
	c->id = id;
	*slot(t, tier, rec->tgid, id) = c;
	push_newest(t, c);
	if (++t->n.open[tier] > t->n.peak[tier])
		t->n.peak[tier] = t->n.open[tier];
	return err;
}

static int exit_closes(struct xpd_conns *t, const struct xk_hdr *rec, xpd_conns_emit emit,
		       void *ctx)
{
	struct conn *c, *next;
	int err = 0, e;

	for (int tier = 0; tier < XPD_CONN_TIERS; tier++)
		for (c = t->lru[tier].oldest; c; c = next) {
			next = c->newer;
			if (c->tgid == rec->tgid && (e = close_conn(t, c, rec->ts_ns, emit, ctx)) &&
			    !err)
				err = e;
		}
	return err;
}

int xpd_conns_record(struct xpd_conns *t, const struct xk_hdr *rec, xpd_conns_emit emit,
		     void *ctx)
{
	uint8_t tier = 0;
	uint64_t id = 0;
	enum op op = classify(rec, &tier, &id);
	struct conn *c;

	if (op == OP_NONE)
		return 0;
	if (op == OP_EXIT)
		return exit_closes(t, rec, emit, ctx);
	c = *slot(t, tier, rec->tgid, id);
	if (op == OP_CLOSE) {
		if (c)
			forget(t, c);
		return 0;
	}
	if (!c)
		return enter(t, rec, tier, id, emit, ctx);
	unlink_lru(t, c);
	push_newest(t, c);
	return 0;
}

void xpd_conns_counts(const struct xpd_conns *t, struct xpd_conn_counts *out)
{
	*out = t->n;
}

struct xpd_conns *xpd_conns_new(unsigned int max)
{
	struct xpd_conns *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->max = max ? max : 1;
	t->nbuckets = 16;
	while (t->nbuckets < t->max && t->nbuckets < BUCKETS_MAX)
		t->nbuckets *= 2;
	t->bucket = calloc(t->nbuckets, sizeof(*t->bucket));
	if (!t->bucket) {
		free(t);
		return NULL;
	}
	return t;
}

void xpd_conns_free(struct xpd_conns *t)
{
	if (!t)
		return;
	for (int tier = 0; tier < XPD_CONN_TIERS; tier++)
		while (t->lru[tier].oldest) {
			struct conn *c = t->lru[tier].oldest;

			t->lru[tier].oldest = c->newer;
			free(c);
		}
	free(t->bucket);
	free(t);
}
