/* SPDX-License-Identifier: MIT */
/*
 * sink.h - consumers of the record stream inside `xperf-bpf` (the hook
 * point for turn assembly): each sink sees every record and the end of
 * the run. Sinks are listed once in sinks.c and run in that order.
 */
#ifndef XPERF_USERSPACE_RUN_SINK_H
#define XPERF_USERSPACE_RUN_SINK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <stddef.h>

#include "userspace/capture.h"

/* Where turn traces go without -o. */
#define XPB_TRACE_DIR_DEFAULT ".xperf/traces"

/* Longest session id (XPERF_SESSION_ID or "<comm>-<pid>-<UTC time>"), NUL included. */
#define XPB_SESSION_ID_MAX 160

/*
 * The directory GPU records come from (gpu/README.md): $XPERF_GPU_DIR when
 * set, else <trace dir>/gpu; `record` sets XPERF_GPU_DIR to it for the
 * command it starts, so a CUPTI collector injected there writes where the
 * turn assembler reads. Returns buf.
 */
const char *xpb_gpu_dir(const char *out_dir, char *buf, size_t len);

/*
 * The run's session id: $XPERF_SESSION_ID when set and valid, else
 * "<comm>-<pid>-<YYYYmmddTHHMMSS>" (comm: command's basename for record,
 * /proc/PID/comm for attach). Returns buf (XPB_SESSION_ID_MAX bytes).
 */
const char *xpb_session_id(pid_t root, char *const *command, char *buf);

/*
 * The daemon's caps on one session's state, for capture.json: its connections
 * (userspace/daemon/conns.h), the turn assembler's process table and its threads'
 * scheduler timelines, whose evictions the turns sink counts here as they happen.
 */
struct xpb_bounds {
	unsigned int max_connections;	/* per agent and tier (--max-connections) */
	uint64_t peak[2];		/* most held at once: TLS, socket tier */
	uint64_t evicted[2];		/* idle ones closed to make room */
	unsigned int max_processes;	/* per agent (--max-processes) */
	uint64_t processes_evicted;	/* exited processes the assembler forgot */
	unsigned int max_sched_marks;	/* per thread (--max-sched-marks) */
	uint64_t sched_marks_evicted;	/* scheduler transitions the assembler forgot */
};

/* What the run's sinks could not write, for capture.json's data_quality (stats ends last). */
struct xpb_unwritten {
	uint64_t turns; /* turn files (a full disk): the session went on without them */
};

/* What the run is; valid from begin() to end(). */
struct xpb_run {
	const char *out_dir;	/* -o DIR, NULL when not given */
	const char *session_id;	/* the run's files go to DIR/<session_id>/ (locked for the run);
				   set before the first record */
	const char *raw_path;	/* --raw FILE.jsonl, NULL when not given */
	pid_t root;		/* the traced process: set after begin(), before any record */
	char *const *command;	/* record: the command's argv; attach: NULL */
	bool capture_payloads;	/* --capture-payloads */
	bool quiet;		/* --quiet: no summary on stdout */
	bool exited;		/* the daemon saw the whole tree exit (its exit records) */
	struct xpb_unwritten *unwritten; /* sinks count here what they could not write, or NULL */
	/* Whether process tgid is the run's (the daemon's runs share one core); NULL: all are. */
	bool (*owns)(const struct xpb_run *run, __u32 tgid);
	struct xpb_bounds *bounds;	/* the daemon's sessions; NULL: no caps */
};

struct xpb_sink {
	const char *name;
	/*
	 * Called after tracing started. 0 with *state set, -EOPNOTSUPP when
	 * the sink is not wanted for this run (it is then skipped), or a
	 * negative errno after printing a one-line error (the run aborts).
	 */
	int (*begin)(const struct xpb_run *run, void **state);
	/* Each record, in ring order. Negative: stop the run with an error. */
	int (*on_event)(void *state, const struct xk_hdr *rec);
	/*
	 * The run ended (target exit, --duration, signal) and the ring was
	 * drained: write outputs. c is still open (thread stats, counts).
	 * Frees state. 0 or a negative errno after printing an error.
	 * c and counts are NULL when the run was aborted: just free.
	 */
	int (*end)(void *state, struct xpc *c, const struct xpc_counts *counts);
};

extern const struct xpb_sink *const xpb_sinks[];
extern const unsigned int xpb_nsinks;

#endif /* XPERF_USERSPACE_RUN_SINK_H */
