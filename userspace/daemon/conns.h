/* SPDX-License-Identifier: MIT */
/*
 * conns.h - one agent's connections, capped (`--max-connections`).
 * A connection is (tgid, SSL*) in the TLS tier and (tgid, socket inode) in
 * the socket tier: the keys the turn assembler keeps state under, each tier
 * in a table of its own. A record of a connection not seen yet, when the
 * agent already holds the cap in its tier, evicts that tier's idlest one: a close record is delivered to the session
 * first (the assembler frees that connection's state; a later record of it
 * starts afresh), and the eviction is counted. A process that exits closes
 * its connections the same way, uncounted: they are gone with it.
 */
#ifndef XPERF_USERSPACE_DAEMON_CONNS_H
#define XPERF_USERSPACE_DAEMON_CONNS_H

#include <stdint.h>

#include <linux/types.h>

#include "bpf/xperf.h"

enum xpd_conn_tier { XPD_CONN_TLS, XPD_CONN_SOCKET, XPD_CONN_TIERS };

extern const char *const xpd_conn_tier_names[XPD_CONN_TIERS];	/* "tls", "socket" */

/* Per tier. */
struct xpd_conn_counts {
	uint64_t open[XPD_CONN_TIERS];		/* connections held now */
	uint64_t peak[XPD_CONN_TIERS];		/* most held at once */
	uint64_t evicted[XPD_CONN_TIERS];	/* idle ones closed to make room */
};

/* Delivers a close record made by the table (to the agent's session). */
typedef int (*xpd_conns_emit)(void *ctx, const struct xk_hdr *rec);

struct xpd_conns;

/* At most max connections per tier (>= 1). NULL on ENOMEM. */
struct xpd_conns *xpd_conns_new(unsigned int max);

/*
 * Before rec goes to the session: a new connection is entered (evicting the
 * idlest at the cap), a known one becomes the most recent, a close forgets
 * it, an exit closes its process's connections. Returns the first error of
 * emit, else 0.
 */
int xpd_conns_record(struct xpd_conns *t, const struct xk_hdr *rec, xpd_conns_emit emit,
		     void *ctx);

void xpd_conns_counts(const struct xpd_conns *t, struct xpd_conn_counts *out);

/* NULL is a no-op. */
void xpd_conns_free(struct xpd_conns *t);

#endif /* XPERF_USERSPACE_DAEMON_CONNS_H */
