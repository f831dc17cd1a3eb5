/* SPDX-License-Identifier: MIT */
/*
 * read.h - the one TurnTrace reader (read.c): a file or buffer is validated
 * by //schema:validate (every error with its line:col and JSON pointer),
 * then turned into a struct tt_turn, indexed (parents, depths) and with its
 * waste marks bound (rules.c). Readers never walk the JSON themselves.
 */
#ifndef XPERF_CORE_READ_H
#define XPERF_CORE_READ_H

#include "core/turn.h"
#include "schema/validate.h"

/* The turn in path; NULL with every error reported through cb (*nerr counts them). */
struct tt_turn *tt_turn_load(const char *path, sc_verror_fn cb, void *ctx, int *nerr);
struct tt_turn *tt_turn_load_buffer(const char *name, const char *buf, size_t len,
				    sc_verror_fn cb, void *ctx, int *nerr);
/*
 * A parsed document (validated or not: anything missing or mistyped refuses
 * it, with the offending pointer in err). doc is consumed: its spans and
 * marks are removed as they are read, their attribute, count and gpu objects
 * move into the turn. NULL on refusal or ENOMEM.
 */
struct tt_turn *tt_turn_from_json(cJSON *doc, char *err, size_t errlen);

#endif /* XPERF_CORE_READ_H */
