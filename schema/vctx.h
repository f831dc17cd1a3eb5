/* SPDX-License-Identifier: MIT */
/*
 * vctx.h - the state of one validation: the JSON pointer of the value being
 * checked and the errors found. Errors are held until the document ended:
 * a syntax error anywhere replaces them (the bytes are not JSON; nothing
 * said about their shape would help). Internal to //schema:validate.
 */
#ifndef XPERF_SCHEMA_VCTX_H
#define XPERF_SCHEMA_VCTX_H

#include <stddef.h>
#include <stdint.h>

#include "schema/jtok.h"
#include "schema/validate.h"

struct sc_vctx {
	const char *file;
	sc_verror_fn cb;
	void *cbctx;
	int nerr;
	struct sc_verror *held; /* the errors so far, at most XP_VALIDATE_MAX_ERRORS + 1 */
	char ptr[256];          /* pointer of the value being checked */
	size_t plen;
};

/* Descend into a member or an element; returns what sc_vctx_up() restores. */
size_t sc_vctx_key(struct sc_vctx *v, const char *key);
size_t sc_vctx_index(struct sc_vctx *v, size_t i);
void sc_vctx_up(struct sc_vctx *v, size_t saved);

/*
 * An error at `at` with the current pointer. After XP_VALIDATE_MAX_ERRORS
 * errors one last error says reporting stopped; later ones are not counted.
 */
__attribute__((format(printf, 3, 4))) void sc_vctx_error(struct sc_vctx *v, struct sc_jpos at,
							   const char *fmt, ...);
/* An error at a raw position with its own pointer (syntax and I/O errors). */
void sc_vctx_error_at(struct sc_vctx *v, uint32_t line, uint32_t col, const char *ptr,
		      const char *msg);
/* Hand the held errors to the callback, in order, and free them. */
void sc_vctx_flush(struct sc_vctx *v);

#endif /* XPERF_SCHEMA_VCTX_H */
