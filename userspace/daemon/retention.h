/* SPDX-License-Identifier: MIT */
/*
 * retention.h - the daemon's disk bound: session directories under
 * DIR/<node> older than an age, or beyond a total size (oldest first), are
 * deleted. A session in use (its .lock held, by this daemon or any other
 * xperf-bpf run) is never touched; neither is anything but a directory
 * holding a .lock (a session directory).
 */
#ifndef XPERF_USERSPACE_DAEMON_RETENTION_H
#define XPERF_USERSPACE_DAEMON_RETENTION_H

#include <stdint.h>

struct xpd_retention {
	double max_age_s;	/* 0: no age limit */
	uint64_t max_bytes;	/* 0: no size limit */
};

/* One pass over node_dir; returns the number of sessions deleted (counted by the caller). */
unsigned int xpd_retention_sweep(const char *node_dir, const struct xpd_retention *r);

#endif /* XPERF_USERSPACE_DAEMON_RETENTION_H */
