/* SPDX-License-Identifier: MIT */
/*
 * doc.h - the assembler's shorthand for filling a TurnTrace turn (the typed
 * model of core/turn.h): spans with scheduler sums, fused and waste marks
 * (a waste mark's L3 is theory's for its kind). Categories, the writer and
 * the file are core's (tt_turn_categorize, tt_turn_write).
 */
#ifndef XPERF_ASSEMBLE_DOC_H
#define XPERF_ASSEMBLE_DOC_H

#include "assemble/sched.h"
#include "core/turn.h"

struct xt_agent_info {
	const char *name;
	const char *comm;
	uint32_t pid;
	const char *model;
};

/*
 * A new turn; NULL on ENOMEM. tier: "plaintext" or "ciphertext"; anchor: the
 * wall-clock anchor to write (lib/clock_anchor.h), NULL for none.
 */
struct tt_turn *xt_doc_new(const char *session_id, int turn_index, int complete,
			   uint64_t start_ns, uint64_t end_ns, const struct xt_agent_info *agent,
			   const char *tier, const struct xp_clock_anchor *anchor);
/*
 * Adds a span of thread tid and returns its id (>= 1), or -1 on ENOMEM.
 * parent: 0 for none. Its scheduler sums are tid's over [a, b) in sched
 * (none when sched does not know tid). *span (if span) gets the span to
 * fill (its attributes, its typed exchange), valid until the next is added.
 */
int xt_doc_span(struct tt_turn *d, int parent, const char *stage, uint64_t a, uint64_t b,
		uint32_t tid, const struct xt_sched *sched, struct tt_span **span);
/* Adds a fused mark; returns its attributes object (NULL on ENOMEM). */
cJSON *xt_doc_fused(struct tt_turn *d, const char *kind, uint64_t t, int span);
/* Adds a waste mark with one count; its L3 is theory's for the kind. Attributes returned. */
cJSON *xt_doc_waste(struct tt_turn *d, const char *kind, uint64_t t, int span,
		    const char *count_name, int count);

#endif /* XPERF_ASSEMBLE_DOC_H */
