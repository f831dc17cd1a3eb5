/* SPDX-License-Identifier: MIT */
/*
 * adapt.h - capture records (bpf/xperf.h and the per-object headers) to
 * assembler events (event.h). The one place that knows both shapes.
 */
#ifndef XPERF_ASSEMBLE_ADAPT_H
#define XPERF_ASSEMBLE_ADAPT_H

#include <linux/types.h>

#include "assemble/event.h"
#include "bpf/xperf.h"

/* Room for the strings an event may point into (argv, SNI host). */
struct xt_adapt_buf {
	char text[4096];
};

/*
 * Converts rec (rec->size bytes readable) into ev. 1 when converted, 0 when
 * the record is of no use to the assembler, -1 when it is malformed. ev's
 * pointers point into rec or buf.
 */
int xt_adapt(const struct xk_hdr *rec, struct xt_event *ev, struct xt_adapt_buf *buf);

#endif /* XPERF_ASSEMBLE_ADAPT_H */
