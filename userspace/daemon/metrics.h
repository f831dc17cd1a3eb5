/* SPDX-License-Identifier: MIT */
/*
 * metrics.h - the daemon's own Prometheus endpoint (libmicrohttpd).
 * GET /metrics serves two texts, each swapped in whole under a mutex so a
 * scrape never waits on the ring nor on a scan: the daemon's health, which
 * the main loop renders each second (xpd_metrics_health), and the figures of
 * the exporters a higher layer registers (the fleet's, as `xperf fleet
 * serve` has them, over the node's sessions), which a thread of the endpoint
 * rescans every interval. Every counter only goes up: the health ones count
 * from the daemon's start (SIGHUP reloads and session ends do not touch
 * them), the exporters keep theirs in a ledger file.
 */
#ifndef XPERF_USERSPACE_DAEMON_METRICS_H
#define XPERF_USERSPACE_DAEMON_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "userspace/capture.h"
#include "userspace/daemon/agents.h"
#include "userspace/daemon/rules.h"

/*
 * Metrics of a higher layer over the node's session directory, linked in by
 * the binary (cli/xperf_bpf_sinks.c lists them, as it lists the sinks).
 * open: its state for node_dir (state_path: where it keeps its counters);
 * NULL after a one-line error. write: rescan, write the exposition text;
 * 0, or -1 (the text before stays). Both run on the endpoint's thread.
 */
struct xpd_exporter {
	const char *name;
	void *(*open)(const char *node_dir, const char *state_path);
	int (*write)(void *state, FILE *out, int log);
	void (*close)(void *state);
};

extern const struct xpd_exporter *const xpd_exporters[];
extern const unsigned int xpd_nexporters;

struct xpd_metrics_opts {
	const char *listen;		/* HOST:PORT; port 0: any, printed */
	const char *node_dir;		/* what the exporters scan */
	unsigned int interval_s;	/* exporters' rescans */
	int quiet;			/* no line per rescan */
};

/* What came of a process a rule matched (xperf_daemon_rule_matches_total's outcome). */
enum xpd_outcome {
	XPD_TRACED,	/* a new agent */
	XPD_IN_TREE,	/* in a traced agent's tree already */
	XPD_REFUSED,	/* --max-agents reached */
	XPD_GONE,	/* exited before it could be traced */
	XPD_FAILED,	/* no session (out of memory, its directory) */
	XPD_OUTCOMES
};

/* What the daemon knows of itself, rendered each second. */
struct xpd_health {
	const struct xpd_counters *agents;
	struct xpc_counts counts;
	struct xpc_health core;
	uint64_t sessions_deleted;	/* by retention */
	uint64_t execs_seen;		/* exec records of untraced processes */
	unsigned int max_agents, max_connections, max_processes, max_sched_marks, rules;
	const uint64_t (*matches)[XPD_OUTCOMES];	/* [enum xpd_rule_kind][outcome] */
	const uint64_t *net;		/* the kernel's discover_stats (enum xk_discover_stat) */
};

struct xpd_metrics;

/* Listen and start the exporters' thread. NULL after a one-line error. */
struct xpd_metrics *xpd_metrics_start(const struct xpd_metrics_opts *o);

/* Render h as the served health text. */
void xpd_metrics_health(struct xpd_metrics *m, const struct xpd_health *h);

/* Stop serving and scanning, free. NULL is a no-op. */
void xpd_metrics_stop(struct xpd_metrics *m);

#endif /* XPERF_USERSPACE_DAEMON_METRICS_H */
