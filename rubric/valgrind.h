/* SPDX-License-Identifier: MIT */
/*
 * valgrind.h - the Valgrind stages: cachegrind (tier medium and up), with
 * explicit cache geometry and --cache-sim=yes --branch-sim=yes; callgrind
 * (medium and up) for call edges; massif (deep and up) for the heap. Each
 * runs the target at --valgrind-size and is read from its raw output file
 * under <out-dir>/tier2 or tier3.
 */
#ifndef XPERF_RUBRIC_VALGRIND_H
#define XPERF_RUBRIC_VALGRIND_H

#include "rubric/rubric.h"

/* The simulated caches: the same on every machine so miss rates compare. */
#define XP_CG_I1 "32768,8,64"
#define XP_CG_D1 "32768,8,64"
#define XP_CG_LL "8388608,16,64"
/* As the report and the summary name it. */
#define XP_CG_MODEL "D1=" XP_CG_D1 ", I1=" XP_CG_I1 ", LL=" XP_CG_LL

/*
 * Run the stages the tier asks for. A stage that cannot run (no valgrind,
 * the target failed under it, unreadable output) is recorded with its
 * reason and does not stop the others. Returns the number of stages that
 * failed for a reason other than "not in this tier" or "valgrind missing".
 */
int rb_valgrind(const struct rb_opts *o, struct rb_meas *m);

#endif /* XPERF_RUBRIC_VALGRIND_H */
