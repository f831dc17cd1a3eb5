/* SPDX-License-Identifier: MIT */
/*
 * vcheck.h - the two halves of the validator's one pass. Internal to
 * //schema:validate.
 *   vshape.c: what turntrace.schema.json says (types, required and unknown
 *             properties, enums, bounds, attribute types), checked on each
 *             value as the tokenizer hands it out; it names each value's
 *             slot and passes it on, while no error was found, to the rules'
 *             collector and to the caller's sink;
 *   vrules.c: what the schema cannot say (ordered times, containment, unique
 *             ids, parents, stages and L3 ids known to theory, sched sums),
 *             over the facts it collected, once the document ended.
 * Both report through sc_vctx_error().
 */
#ifndef XPERF_SCHEMA_VCHECK_H
#define XPERF_SCHEMA_VCHECK_H

#include "schema/vctx.h"

struct sc_vshape;
struct sc_vrules;

struct sc_vshape *sc_vshape_new(struct sc_vctx *v, struct sc_vrules *rules,
				const struct sc_vsink *sink);
/* One event of the tokenizer; the document's end is sc_vshape_free's business. */
void sc_vshape_feed(struct sc_vshape *s, const struct sc_jev *ev);
void sc_vshape_free(struct sc_vshape *s);

struct sc_vrules *sc_vrules_new(void);
/* A value the shape accepted; -1 on ENOMEM. */
int sc_vrules_feed(struct sc_vrules *r, const struct sc_vval *val);
/* The cross-field rules; run only when the shape had no error. */
void sc_vrules_turn(struct sc_vctx *v, struct sc_vrules *r);
void sc_vrules_free(struct sc_vrules *r);

#endif /* XPERF_SCHEMA_VCHECK_H */
