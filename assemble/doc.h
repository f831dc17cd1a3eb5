/* SPDX-License-Identifier: MIT */
/*
 * doc.h - builds one TurnTrace v1 document (schema/README.md) with cJSON:
 * spans, fused marks and waste marks are added as the turn is assembled;
 * xt_doc_finish() then derives every span's domain and category from
 * theory's stage map (waste marks first, then the domain's rule) and
 * xt_doc_write() stores it atomically, mode 0600, as DIR/SESSION/turn_NNN.json.
 */
#ifndef XPERF_ASSEMBLE_DOC_H
#define XPERF_ASSEMBLE_DOC_H

#include <cjson/cJSON.h>

#include "assemble/sched.h"
#include "lib/clock_anchor.h"

struct xt_agent_info {
	const char *name;
	const char *comm;
	uint32_t pid;
	uint64_t start_time_ns;
	const char *model;
};

struct xt_doc {
	cJSON *root, *spans, *fused, *waste, *quality;
	int next_id;
};

/*
 * A new document; NULL on ENOMEM. tier: "plaintext" or "ciphertext"; anchor:
 * the wall-clock anchor to write (lib/clock_anchor.h), NULL for none.
 */
struct xt_doc *xt_doc_new(const char *session_id, int turn_index, int complete, uint64_t start_ns,
			  uint64_t end_ns, const struct xt_agent_info *agent, const char *tier,
			  const struct xp_clock_anchor *anchor);
void xt_doc_free(struct xt_doc *d);
/*
 * Adds a span and returns its id (>= 1), or -1 on ENOMEM. parent: 0 for none.
 * sched may be NULL (no scheduler data). *attrs (if attrs) gets the span's
 * attributes object to fill.
 */
int xt_doc_span(struct xt_doc *d, int parent, const char *stage, uint64_t a, uint64_t b,
		uint32_t tid, const struct xt_sched_sum *sched, cJSON **attrs);
/* Adds a fused mark; returns its attributes object (NULL on ENOMEM). */
cJSON *xt_doc_fused(struct xt_doc *d, const char *kind, uint64_t t, int span);
/* Adds a waste mark with one count; its L3 is theory's for the kind. Attributes returned. */
cJSON *xt_doc_waste(struct xt_doc *d, const char *kind, uint64_t t, int span,
		    const char *count_name, int count);
/* Data quality: dropped kernel events, truncated payloads, one warning (may be NULL). */
void xt_doc_quality(struct xt_doc *d, uint64_t dropped, uint64_t truncated);
void xt_doc_warn(struct xt_doc *d, const char *warning);
/* Derives domain and category of every span. */
void xt_doc_finish(struct xt_doc *d);
/* Writes dir/<session>/turn_NNN.json atomically; 0 or -errno. path gets the file name. */
int xt_doc_write(struct xt_doc *d, const char *dir, char *path, size_t pathlen);

#endif /* XPERF_ASSEMBLE_DOC_H */
