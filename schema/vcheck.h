/* SPDX-License-Identifier: MIT */
/*
 * vcheck.h - the two passes over a parsed TurnTrace document. Internal to
 * //schema:validate.
 *   sc_vshape_turn: what turntrace.schema.json says (types, required and
 *                   unknown properties, enums, bounds, attribute types);
 *   sc_vrules_turn: what it cannot say (ordered times, containment, unique
 *                   ids, parents, stages and L3 ids known to theory, sched
 *                   sums). Run only on a document that passed the first.
 * Both report through sc_vctx_error() and return nothing.
 */
#ifndef XPERF_SCHEMA_VCHECK_H
#define XPERF_SCHEMA_VCHECK_H

#include "schema/vctx.h"

void sc_vshape_turn(struct sc_vctx *v, const cJSON *root);
void sc_vrules_turn(struct sc_vctx *v, const cJSON *root);

/* The integer value of a node the shape pass accepted as an integer. */
long long sc_vint(const cJSON *n);

#endif /* XPERF_SCHEMA_VCHECK_H */
