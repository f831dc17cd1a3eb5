/* SPDX-License-Identifier: MIT */
/*
 * vcheck.h - the two passes over a parsed TurnTrace document. Internal to
 * //schema:validate.
 *   xp_vshape_turn: what turntrace.schema.json says (types, required and
 *                   unknown properties, enums, bounds, attribute types);
 *   xp_vrules_turn: what it cannot say (ordered times, containment, unique
 *                   ids, parents, stages and L3 ids known to theory, sched
 *                   sums). Run only on a document that passed the first.
 * Both report through xp_vctx_error() and return nothing.
 */
#ifndef XPERF_SCHEMA_VCHECK_H
#define XPERF_SCHEMA_VCHECK_H

#include "schema/vctx.h"

void xp_vshape_turn(struct xp_vctx *v, const cJSON *root);
void xp_vrules_turn(struct xp_vctx *v, const cJSON *root);

/* The integer value of a node the shape pass accepted as an integer. */
long long xp_vint(const cJSON *n);

#endif /* XPERF_SCHEMA_VCHECK_H */
