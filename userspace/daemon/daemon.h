/* SPDX-License-Identifier: MIT */
/*
 * daemon.h - `xperf-bpf daemon`: one capture core for the whole machine.
 * Every exec on the node is matched against the rules (rules.h);
 * a match becomes a traced agent with its descendants, each agent tree a
 * session DIR/<node>/<session>/ of its own (README.md).
 */
#ifndef XPERF_USERSPACE_DAEMON_DAEMON_H
#define XPERF_USERSPACE_DAEMON_DAEMON_H

/* The `daemon` subcommand: argv[0] is "daemon". Returns an XP_EXIT_* code. */
int xpd_main(int argc, char **argv);

#endif /* XPERF_USERSPACE_DAEMON_DAEMON_H */
