/* SPDX-License-Identifier: MIT */
/*
 * read.h - the one TurnTrace reader (read.c): a file or buffer becomes a
 * struct tt_turn in one pass over its bytes, validated on the way by
 * //schema:validate (every error with its line:col and JSON pointer, the
 * same ones `xperf validate` prints), indexed (parents, depths) and with its
 * waste marks bound (rules.c). No tree of the document is built; readers
 * never walk the JSON themselves.
 */
#ifndef XPERF_CORE_READ_H
#define XPERF_CORE_READ_H

#include "core/turn.h"
#include "schema/validate.h"

/* The turn in path; NULL with every error reported through cb (*nerr counts them). */
struct tt_turn *tt_turn_load(const char *path, sc_verror_fn cb, void *ctx, int *nerr);
struct tt_turn *tt_turn_load_buffer(const char *name, const char *buf, size_t len,
				    sc_verror_fn cb, void *ctx, int *nerr);

#endif /* XPERF_CORE_READ_H */
