/* SPDX-License-Identifier: MIT */
/*
 * vctx.c - error reporting for the validator, with positions.
 *
 * The scanner recorded the line:col of every value in pre-order; walking the
 * cJSON tree in pre-order (iteratively, with an explicit stack) pairs each
 * node with its position. The pairing lives in an open-addressing hash table
 * keyed by node address, built only when the first error needs a position,
 * so valid files pay nothing for it.
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

static size_t slot_of(const struct sc_vctx *v, const cJSON *node)
{
	uint64_t h = (uint64_t)(uintptr_t)node * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17) & (v->map_cap - 1);
}

static void map_put(struct sc_vctx *v, const cJSON *node, uint32_t idx)
{
	size_t i = slot_of(v, node);

	while (v->map_key[i])
		i = (i + 1) & (v->map_cap - 1);
	v->map_key[i] = node;
	v->map_val[i] = idx;
}

/* Pair nodes with scanner positions by walking the tree in pre-order. */
static int build_map(struct sc_vctx *v)
{
	const cJSON *stack[2 * XP_VALIDATE_MAX_DEPTH + 4]; /* one pending sibling per level */
	int top = 0;
	uint32_t idx = 0;

	v->map_cap = 16;
	while (v->map_cap < 2 * v->scan->npos)
		v->map_cap *= 2;
	v->map_key = calloc(v->map_cap, sizeof(*v->map_key));
	v->map_val = malloc(v->map_cap * sizeof(*v->map_val));
	if (!v->map_key || !v->map_val)
		return -1;
	stack[top++] = v->root;
	while (top) {
		const cJSON *n = stack[--top];

		if (idx >= v->scan->npos)
			return -1; /* the tree and the scan disagree: no positions */
		map_put(v, n, idx++);
		if (top + 2 > (int)(sizeof(stack) / sizeof(stack[0])))
			return -1;
		if (n->next)
			stack[top++] = n->next;
		if (n->child)
			stack[top++] = n->child;
	}
	return 0;
}

static const struct sc_jpos *position(struct sc_vctx *v, const cJSON *node)
{
	if (!v->scan || !v->root || !node || v->map_failed)
		return NULL;
	if (!v->map_key && build_map(v)) {
		v->map_failed = 1;
		return NULL;
	}
	for (size_t i = slot_of(v, node); v->map_key[i]; i = (i + 1) & (v->map_cap - 1))
		if (v->map_key[i] == node)
			return &v->scan->pos[v->map_val[i]];
	return NULL;
}

void sc_vctx_error_at(struct sc_vctx *v, uint32_t line, uint32_t col, const char *ptr,
		      const char *msg)
{
	struct sc_verror e = { .file = v->file ? v->file : "<buffer>" };

	if (v->nerr > XP_VALIDATE_MAX_ERRORS)
		return;
	if (++v->nerr > XP_VALIDATE_MAX_ERRORS)
		msg = "too many errors; stopped reporting";
	e.line = (int)line;
	e.col = (int)col;
	snprintf(e.pointer, sizeof(e.pointer), "%s", ptr);
	snprintf(e.msg, sizeof(e.msg), "%s", msg);
	if (v->cb)
		v->cb(&e, v->cbctx);
}

void sc_vctx_error(struct sc_vctx *v, const cJSON *at, const char *fmt, ...)
{
	const struct sc_jpos *p = position(v, at);
	char msg[256];
	va_list ap;

	if (!p)
		p = position(v, v->root);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sc_vctx_error_at(v, p ? p->line : 1, p ? p->col : 1, v->ptr, msg);
}

void sc_vctx_free(struct sc_vctx *v)
{
	free(v->map_key);
	free(v->map_val);
	v->map_key = NULL;
	v->map_val = NULL;
}
