/* SPDX-License-Identifier: MIT */
/*
 * daemon_metrics.h - the daemon's own Prometheus endpoint (libmicrohttpd):
 * GET /metrics serves the last text the main loop published (its health:
 * agents, records, losses, sessions), swapped in under a mutex, so a scrape
 * never waits on the ring.
 */
#ifndef XPERF_USERSPACE_DAEMON_METRICS_H
#define XPERF_USERSPACE_DAEMON_METRICS_H

#include <stddef.h>

struct xpd_metrics;

/* Listen on "host:port" (port 0: any; the port is printed). NULL after a one-line error. */
struct xpd_metrics *xpd_metrics_start(const char *listen);

/* Replace the served text with a copy of text. */
void xpd_metrics_publish(struct xpd_metrics *m, const char *text, size_t len);

/* Stop serving and free. NULL is a no-op. */
void xpd_metrics_stop(struct xpd_metrics *m);

#endif /* XPERF_USERSPACE_DAEMON_METRICS_H */
