/* SPDX-License-Identifier: MIT */
/*
 * regress.h - comparisons against earlier runs: a --baseline
 * benchmark_summary.json, and the --baseline-ledger JSONL history (vs the
 * last entry and vs the best, i.e. highest rubric_total, first on ties).
 * A dimension regresses when its tier drops (FAIL 0 < WARN 1 < PASS 2);
 * N/A, N/A (noise) and unknown tiers on either side are skipped.
 */
#ifndef XPERF_RUBRIC_REGRESS_H
#define XPERF_RUBRIC_REGRESS_H

#include <stddef.h>

#include "rubric/rubric.h"
#include "rubric/score.h"

/* Tiers of a reference run, by dimension (T_NA where absent or unknown). */
struct rb_ref {
	enum rb_tierv tier[D_COUNT];
	int total;
};

/* Tier drops of cur against ref, in dimension order. */
void rb_regress(const struct rb_ref *ref, const struct rb_result *cur,
		   struct rb_regressions *out);

/*
 * Read a baseline summary from a buffer (`name` for errors): dimension tiers
 * and the Memory Profile peak. Returns 0, or -1 with "name:line:col: why" in
 * err (invalid JSON, or no rubric.dimensions object).
 */
int rb_baseline_parse(const char *name, const char *buf, size_t len, struct rb_ref *ref,
			 struct rb_base_mem *mem, char *err, size_t errlen);

/* The ledger's reference entries. */
struct rb_ledger {
	int entries; /* valid lines */
	struct rb_ref last, best;
	int corrupt;		     /* lines skipped */
	char warnings[4][XP_RB_WHY]; /* the first few "Skipped corrupt line N in PATH" */
};

/* Read a ledger buffer; never fails: corrupt lines are skipped and counted. */
void rb_ledger_parse(const char *name, const char *buf, size_t len, struct rb_ledger *l);

#endif /* XPERF_RUBRIC_REGRESS_H */
