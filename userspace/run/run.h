/* SPDX-License-Identifier: MIT */
/*
 * run.h - one tracing run of `xperf-bpf`: feed every record to the sinks
 * until the target exits, --duration passes or SIGINT/SIGTERM arrives, then
 * drain the ring, report losses and let the sinks write their outputs.
 */
#ifndef XPERF_USERSPACE_RUN_RUN_H
#define XPERF_USERSPACE_RUN_RUN_H

#include "lib/args.h"
#include "lib/exit_codes.h" /* XP_EXIT_*: xperf-bpf returns them */
#include "userspace/capture.h"
#include "userspace/run/sink.h"

struct xpb_sinks;

/* Sinks' state for one run (opaque): created before xpc_open() (it is the
 * callback's ctx), begun once the run is known. NULL on ENOMEM. */
struct xpb_sinks *xpb_sinks_new(void);

/* Begin every sink wanted for run; 0 or the first sink's error. */
int xpb_sinks_begin(struct xpb_sinks *s, const struct xpb_run *run);

/* Abort: end begun sinks without output and free. NULL is a no-op. */
void xpb_sinks_free(struct xpb_sinks *s);

/* The xpc_opts.on_event callback that feeds every sink (ctx: the sinks). */
int xpb_sinks_event(void *ctx, const struct xk_hdr *rec);

/* The run ended: every begun sink writes its outputs; frees s. 0 or -EIO. */
int xpb_sinks_end(struct xpb_sinks *s, struct xpc *c, const struct xpc_counts *counts);

/*
 * Trace until the root exits (pidfd), duration_s passes (0: no limit) or
 * a signal; drain, end the sinks (frees them), print the summary and any
 * loss on stderr. Returns an XPB_EXIT_* code.
 */
int xpb_run(struct xpc *c, struct xpb_sinks *sinks, const struct xpb_run *run,
	    double duration_s);

/* --ring-size's value (a power of two, 4096..1G), for record, attach and daemon. */
size_t xpb_ring_size_arg(const struct argp_state *state, const char *arg);

/* Install SIGINT/SIGTERM handlers that make xpb_run() stop cleanly. */
void xpb_signals(void);

#endif /* XPERF_USERSPACE_RUN_RUN_H */
