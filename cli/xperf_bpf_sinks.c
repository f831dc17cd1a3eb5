// SPDX-License-Identifier: MIT
/*
 * sinks.c - the record consumers of `xperf-bpf`, in call order (one line
 * each; turn assembly plugs in here).
 */
#include "userspace/run/sink.h"

extern const struct xpb_sink xpb_sink_raw;
extern const struct xpb_sink xpb_sink_stats;
extern const struct xpb_sink xpb_sink_gpu;
extern const struct xpb_sink xpb_sink_turns;

const struct xpb_sink *const xpb_sinks[] = {
	&xpb_sink_raw,
	&xpb_sink_gpu, /* before turns: its files are closed when turns merges them */
	&xpb_sink_turns,
	&xpb_sink_stats, /* last: capture.json counts what the others could not write */
};

const unsigned int xpb_nsinks = sizeof(xpb_sinks) / sizeof(xpb_sinks[0]);
