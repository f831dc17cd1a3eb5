/* SPDX-License-Identifier: MIT */
/*
 * discover.h - the daemon's network discovery: its `host` and `path`
 * rules go to the kernel (bpf/discover_net.bpf.h), which makes a process
 * traced at the first send that names one and writes XP_EV_SOCK_DISCOVER;
 * what the kernel examined and let go is counted there and said here.
 */
#ifndef XPERF_USERSPACE_DAEMON_DISCOVER_H
#define XPERF_USERSPACE_DAEMON_DISCOVER_H

#include "userspace/capture.h"
#include "userspace/daemon/rules.h"

/* The rules' hosts and paths into the kernel (replacing the last set): 0 or -EIO, said on stderr. */
int xpd_discover_push(struct xpc *c, const struct xpd_rules *r);

/* One summary line on stderr (at exit). */
void xpd_discover_report(struct xpc *c);

#endif /* XPERF_USERSPACE_DAEMON_DISCOVER_H */
