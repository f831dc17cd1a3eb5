/* SPDX-License-Identifier: MIT */
/*
 * vctx.h - the state of one validation: where errors go, the JSON pointer of
 * the value being checked, and the map from cJSON nodes back to the line:col
 * the scanner recorded. Internal to //schema:validate.
 */
#ifndef XPERF_SCHEMA_VCTX_H
#define XPERF_SCHEMA_VCTX_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "schema/jscan.h"
#include "schema/validate.h"

struct sc_vctx {
	const char *file;
	sc_verror_fn cb;
	void *cbctx;
	int nerr;
	const cJSON *root;
	const struct sc_jscan *scan;
	/* cJSON node -> index into scan->pos; built on the first error only */
	const cJSON **map_key;
	uint32_t *map_val;
	size_t map_cap;
	int map_failed;
	char ptr[256]; /* pointer of the value being checked */
	size_t plen;
};

/* Descend into a member or an element; returns what sc_vctx_up() restores. */
size_t sc_vctx_key(struct sc_vctx *v, const char *key);
size_t sc_vctx_index(struct sc_vctx *v, size_t i);
void sc_vctx_up(struct sc_vctx *v, size_t saved);

/*
 * Report an error at node `at` (its line:col; the root's when unknown) with
 * the current pointer. After XP_VALIDATE_MAX_ERRORS errors one last error
 * says reporting stopped; later ones are not counted.
 */
__attribute__((format(printf, 3, 4))) void sc_vctx_error(struct sc_vctx *v, const cJSON *at,
							   const char *fmt, ...);

/* Report an error at a raw position (syntax and I/O errors). */
void sc_vctx_error_at(struct sc_vctx *v, uint32_t line, uint32_t col, const char *ptr,
		      const char *msg);

void sc_vctx_free(struct sc_vctx *v);

#endif /* XPERF_SCHEMA_VCTX_H */
