/* SPDX-License-Identifier: MIT */
/*
 * vctx.c - the validator's JSON pointer and its held errors (see vctx.h).
 */
#include "schema/vctx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t sc_vctx_key(struct sc_vctx *v, const char *key)
{
	size_t saved = v->plen;

	v->plen = sc_jptr_append(v->ptr, sizeof(v->ptr), v->plen, key, strlen(key));
	return saved;
}

size_t sc_vctx_index(struct sc_vctx *v, size_t i)
{
	char num[24];
	size_t saved = v->plen;
	int n = snprintf(num, sizeof(num), "%zu", i);

	v->plen = sc_jptr_append(v->ptr, sizeof(v->ptr), v->plen, num, (size_t)n);
	return saved;
}

void sc_vctx_up(struct sc_vctx *v, size_t saved)
{
	v->plen = saved;
	v->ptr[saved] = '\0';
}

void sc_vctx_error_at(struct sc_vctx *v, uint32_t line, uint32_t col, const char *ptr,
		      const char *msg)
{
	struct sc_verror *e;

	if (v->nerr > XP_VALIDATE_MAX_ERRORS)
		return;
	if (!v->held && !(v->held = calloc(XP_VALIDATE_MAX_ERRORS + 1, sizeof(*v->held)))) {
		v->nerr = XP_VALIDATE_MAX_ERRORS + 1; /* counted, never shown: no memory */
		return;
	}
	e = &v->held[v->nerr];
	if (++v->nerr > XP_VALIDATE_MAX_ERRORS)
		msg = "too many errors; stopped reporting";
	e->file = v->file ? v->file : "<buffer>";
	e->line = (int)line;
	e->col = (int)col;
	snprintf(e->pointer, sizeof(e->pointer), "%s", ptr);
	snprintf(e->msg, sizeof(e->msg), "%s", msg);
}

void sc_vctx_error(struct sc_vctx *v, struct sc_jpos at, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sc_vctx_error_at(v, at.line, at.col, v->ptr, msg);
}

void sc_vctx_flush(struct sc_vctx *v)
{
	for (int i = 0; v->held && v->cb && i < v->nerr; i++)
		v->cb(&v->held[i], v->cbctx);
	free(v->held);
	v->held = NULL;
}
