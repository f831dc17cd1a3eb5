/* SPDX-License-Identifier: MIT */
/* theory.c - lookups over the theory tables (the tables are in theory_data.c). */
#include "theory/theory.h"

#include <stddef.h>
#include <string.h>

/* The entry of `table` (n entries of `size` bytes) whose string member at `off` is `key`. */
static const void *find(const void *table, size_t n, size_t size, size_t off, const char *key)
{
	for (size_t i = 0; key && i < n; i++) {
		const char *e = (const char *)table + i * size;

		if (!strcmp(*(const char *const *)(e + off), key))
			return e;
	}
	return NULL;
}

#define FIND(table, n, member, key) \
	find(table, n, sizeof(table[0]), offsetof(__typeof__(table[0]), member), key)

const struct xp_stage *xp_stage_find(const char *name)
{
	return FIND(xp_stage_table, xp_stage_count, name, name);
}

const struct xp_l3 *xp_l3_find(const char *id)
{
	return FIND(xp_l3_table, xp_l3_count, id, id);
}

const struct xp_l2 *xp_l2_find(const char *id)
{
	return FIND(xp_l2_table, xp_l2_count, id, id);
}

const struct xp_l4 *xp_l4_find(const char *id)
{
	return FIND(xp_l4_table, xp_l4_count, id, id);
}

const struct xp_waste_kind *xp_waste_kind_find(const char *kind)
{
	return FIND(xp_waste_kind_table, xp_waste_kind_count, kind, kind);
}

const struct xp_counter_name *xp_counter_name_find(const char *name)
{
	return FIND(xp_counter_name_table, xp_counter_name_count, name, name);
}

const struct xp_l2 *xp_l2_of(enum xp_domain d, enum xp_category c)
{
	for (size_t i = 0; i < xp_l2_count; i++)
		if (xp_l2_table[i].domain == d && xp_l2_table[i].category == c)
			return &xp_l2_table[i];
	return NULL;
}

int xp_domain_parse(const char *key, enum xp_domain *out)
{
	const struct xp_domain_info *d = FIND(xp_domains, XP_DOMAIN_COUNT, key, key);

	if (!d)
		return -1;
	*out = d->id;
	return 0;
}

int xp_category_parse(const char *key, enum xp_category *out)
{
	const struct xp_category_info *c = FIND(xp_categories, XP_CAT_COUNT, key, key);

	if (!c)
		return -1;
	*out = c->id;
	return 0;
}
