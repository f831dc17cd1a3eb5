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

const struct th_stage *th_stage_find(const char *name)
{
	return FIND(th_stage_table, th_stage_count, name, name);
}

const struct th_l3 *th_l3_find(const char *id)
{
	return FIND(th_l3_table, th_l3_count, id, id);
}

const struct th_l2 *th_l2_find(const char *id)
{
	return FIND(th_l2_table, th_l2_count, id, id);
}

const struct th_l4 *th_l4_find(const char *id)
{
	return FIND(th_l4_table, th_l4_count, id, id);
}

const struct th_waste_kind *th_waste_kind_find(const char *kind)
{
	return FIND(th_waste_kind_table, th_waste_kind_count, kind, kind);
}

const struct th_counter_name *th_counter_name_find(const char *name)
{
	return FIND(th_counter_name_table, th_counter_name_count, name, name);
}

const struct th_l2 *th_l2_of(enum th_domain d, enum th_category c)
{
	for (size_t i = 0; i < th_l2_count; i++)
		if (th_l2_table[i].domain == d && th_l2_table[i].category == c)
			return &th_l2_table[i];
	return NULL;
}

int th_domain_parse(const char *key, enum th_domain *out)
{
	const struct th_domain_info *d = FIND(th_domains, XP_DOMAIN_COUNT, key, key);

	if (!d)
		return -1;
	*out = d->id;
	return 0;
}

int th_category_parse(const char *key, enum th_category *out)
{
	const struct th_category_info *c = FIND(th_categories, XP_CAT_COUNT, key, key);

	if (!c)
		return -1;
	*out = c->id;
	return 0;
}
