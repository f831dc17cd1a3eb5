// SPDX-License-Identifier: MIT
/* conns_test.c - the capped connection table: LRU eviction, closes, exits, counts. */
#include <string.h>

#include "userspace/daemon/conns.h"
#include "bpf/sock.h"
#include "bpf/tls.h"
#include "lib/test_check.h"

struct emitted {
	int n;
	struct xk_hdr last;
	uint64_t last_id;
};

static int emit(void *ctx, const struct xk_hdr *rec)
{
	struct emitted *e = ctx;

	e->n++;
	e->last = *rec;
	e->last_id = ((const struct xk_tls_free *)rec)->ssl;
	CHECK(rec->size == (rec->type == XP_EV_TLS_FREE ? sizeof(struct xk_tls_free) :
						       sizeof(struct xk_sock_conn)));
	return 0;
}

static void feed(struct xpd_conns *t, struct emitted *e, uint16_t type, uint32_t tgid,
		 uint64_t id, uint64_t ts)
{
	struct xk_sock_conn r = { .hdr = { .type = type, .size = sizeof(r), .ts_ns = ts,
					   .tgid = tgid, .start_ns = 7 }, .sock_id = id };

	CHECK(xpd_conns_record(t, &r.hdr, emit, e) == 0);
}

static void test_lru(void)
{
	struct xpd_conns *t = xpd_conns_new(2);
	struct xpd_conn_counts k;
	struct emitted e = { 0 };

	feed(t, &e, XP_EV_SOCK_CONNECT, 10, 1, 100);
	feed(t, &e, XP_EV_SOCK_CONNECT, 10, 2, 105);
	feed(t, &e, XP_EV_TLS_DATA, 10, 0xa, 110);
	feed(t, &e, XP_EV_TLS_DATA, 10, 0xb, 111);
	feed(t, &e, XP_EV_SOCK_DATA, 10, 1, 120);	/* socket 1 is now the most recent */
	CHECK(e.n == 0);				/* two per tier: no eviction */
	feed(t, &e, XP_EV_SOCK_CONNECT, 10, 3, 130);	/* evicts the idlest socket: 2 */
	CHECK(e.n == 1 && e.last.type == XP_EV_SOCK_CLOSE && e.last_id == 2);
	CHECK(e.last.ts_ns == 130 && e.last.tgid == 10 && e.last.start_ns == 7);
	feed(t, &e, XP_EV_TLS_DATA, 10, 0xc, 140);	/* evicts TLS 0xa */
	CHECK(e.n == 2 && e.last.type == XP_EV_TLS_FREE && e.last_id == 0xa);
	feed(t, &e, XP_EV_SOCK_DATA, 10, 2, 150);	/* 2 comes back: evicts socket 1 */
	CHECK(e.n == 3 && e.last.type == XP_EV_SOCK_CLOSE && e.last_id == 1);
	xpd_conns_counts(t, &k);
	CHECK(k.open[XPD_CONN_TLS] == 2 && k.open[XPD_CONN_SOCKET] == 2);
	CHECK(k.peak[XPD_CONN_TLS] == 2 && k.peak[XPD_CONN_SOCKET] == 2);
	CHECK(k.evicted[XPD_CONN_TLS] == 1 && k.evicted[XPD_CONN_SOCKET] == 2);
	xpd_conns_free(t);
}

static void test_close_and_exit(void)
{
	struct xpd_conns *t = xpd_conns_new(3);
	struct xpd_conn_counts k;
	struct emitted e = { 0 };

	feed(t, &e, XP_EV_SOCK_CONNECT, 10, 1, 100);
	feed(t, &e, XP_EV_SOCK_CONNECT, 11, 1, 100);	/* same inode number, another process */
	feed(t, &e, XP_EV_TLS_DATA, 11, 5, 100);
	feed(t, &e, XP_EV_SOCK_CLOSE, 10, 1, 110);	/* a real close: forgotten, no record */
	feed(t, &e, XP_EV_SOCK_CLOSE, 10, 99, 110);	/* unknown: nothing */
	CHECK(e.n == 0);
	xpd_conns_counts(t, &k);
	CHECK(k.open[XPD_CONN_SOCKET] == 1 && k.open[XPD_CONN_TLS] == 1);
	feed(t, &e, XP_EV_EXIT, 11, 0, 120);		/* its two connections closed */
	CHECK(e.n == 2 && e.last.tgid == 11 && e.last.ts_ns == 120);
	xpd_conns_counts(t, &k);
	CHECK(!k.open[0] && !k.open[1] && k.peak[XPD_CONN_SOCKET] == 2);
	CHECK(!k.evicted[0] && !k.evicted[1]);
	feed(t, &e, XP_EV_SCHED, 11, 0, 130);		/* not a connection's */
	xpd_conns_counts(t, &k);
	CHECK(!k.open[0] && !k.open[1] && e.n == 2);
	xpd_conns_free(t);
}

static void test_many(void)
{
	struct xpd_conns *t = xpd_conns_new(100);
	struct xpd_conn_counts k;
	struct emitted e = { 0 };

	for (uint64_t i = 0; i < 10000; i++)
		feed(t, &e, XP_EV_SOCK_DATA, (uint32_t)(i % 7), i, i);
	xpd_conns_counts(t, &k);
	CHECK(k.open[XPD_CONN_SOCKET] == 100 && k.evicted[XPD_CONN_SOCKET] == 9900 && e.n == 9900);
	CHECK(e.last_id == 9899);	/* the oldest of the last 101 */
	xpd_conns_free(t);
}

int main(void)
{
	test_lru();
	test_close_and_exit();
	test_many();
	return test_failures != 0;
}
