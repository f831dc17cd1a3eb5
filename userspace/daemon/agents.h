/* SPDX-License-Identifier: MIT */
/*
 * agents.h - the daemon's traced agents: one session per agent tree
 * (its sinks, its directory DIR/<node>/<session>/ locked while it runs),
 * and which agent each traced process belongs to (fork and exit records
 * keep that current; a sweep catches an exit whose record was lost).
 */
#ifndef XPERF_USERSPACE_DAEMON_AGENTS_H
#define XPERF_USERSPACE_DAEMON_AGENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "userspace/capture.h"
#include "userspace/daemon/conns.h"

struct xpd_agents;

struct xpd_agents_opts {
	const char *node_dir;		/* DIR/<node> */
	const char *raw_path;		/* --raw FILE: every routed record, NULL: none */
	unsigned int max_agents;	/* more are refused (counted) */
	unsigned int max_connections;	/* per agent: the idlest evicted beyond (counted) */
	unsigned int max_processes;	/* per agent, the turn assembler's process table */
	unsigned int max_sched_marks;	/* per thread, the turn assembler's scheduler timelines */
	bool capture_payloads;
	bool quiet;
};

/* The daemon's counters; they only go up (agents_active aside). */
struct xpd_counters {
	uint64_t agents_traced;		/* sessions started */
	uint64_t agents_active;		/* sessions open now */
	uint64_t agents_refused;	/* matched beyond max_agents */
	uint64_t agents_missed;		/* matched, gone before it could be traced */
	uint64_t sessions_ended;
	uint64_t records_routed;	/* delivered to an agent's sinks */
	uint64_t connections_open;	/* held now, all agents (a gauge) */
	uint64_t connections_evicted[XPD_CONN_TIERS];
	uint64_t processes_evicted;	/* exited processes the agents' assemblers forgot */
	uint64_t sched_marks_evicted;	/* scheduler transitions they forgot */
};

/* NULL on ENOMEM or when the raw dump cannot be opened (message printed). */
struct xpd_agents *xpd_agents_new(struct xpc *c, const struct xpd_agents_opts *o);

/*
 * Trace process tgid (matched by a rule) as a new agent: 0, -EEXIST (already
 * in an agent's tree), -EUSERS (cap reached), -ESRCH (gone), other -errno.
 * first: its exec record, delivered to the new session (may be NULL).
 */
int xpd_agents_add(struct xpd_agents *a, pid_t tgid, const struct xk_hdr *first);

/* A traced record: to its agent's session; fork and exit update the trees. */
int xpd_agents_route(struct xpd_agents *a, const struct xk_hdr *rec);

/* End the sessions of trees whose processes are all gone (lost exit records). */
void xpd_agents_sweep(struct xpd_agents *a);

/* The counters so far (the connection figures summed over the open sessions now). */
const struct xpd_counters *xpd_agents_counters(struct xpd_agents *a);

/* Drain is the caller's: end every open session (open turns: complete: false), free. */
int xpd_agents_free(struct xpd_agents *a);

#endif /* XPERF_USERSPACE_DAEMON_AGENTS_H */
