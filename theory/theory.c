/* SPDX-License-Identifier: MIT */
/* theory.c - lookups over the theory tables (the tables are in theory_data.c). */
#include "theory/theory.h"

#include <string.h>

const struct xp_stage *xp_stage_find(const char *name)
{
	for (size_t i = 0; name && i < xp_stage_count; i++)
		if (strcmp(xp_stage_table[i].name, name) == 0)
			return &xp_stage_table[i];
	return NULL;
}

const struct xp_l3 *xp_l3_find(const char *id)
{
	for (size_t i = 0; id && i < xp_l3_count; i++)
		if (strcmp(xp_l3_table[i].id, id) == 0)
			return &xp_l3_table[i];
	return NULL;
}

const struct xp_l2 *xp_l2_find(const char *id)
{
	for (size_t i = 0; id && i < xp_l2_count; i++)
		if (strcmp(xp_l2_table[i].id, id) == 0)
			return &xp_l2_table[i];
	return NULL;
}

const struct xp_l2 *xp_l2_of(enum xp_domain d, enum xp_category c)
{
	for (size_t i = 0; i < xp_l2_count; i++)
		if (xp_l2_table[i].domain == d && xp_l2_table[i].category == c)
			return &xp_l2_table[i];
	return NULL;
}

const struct xp_l4 *xp_l4_find(const char *id)
{
	for (size_t i = 0; id && i < xp_l4_count; i++)
		if (strcmp(xp_l4_table[i].id, id) == 0)
			return &xp_l4_table[i];
	return NULL;
}

int xp_domain_parse(const char *key, enum xp_domain *out)
{
	for (int i = 0; key && i < XP_DOMAIN_COUNT; i++) {
		if (strcmp(xp_domains[i].key, key) == 0) {
			*out = xp_domains[i].id;
			return 0;
		}
	}
	return -1;
}

int xp_category_parse(const char *key, enum xp_category *out)
{
	for (int i = 0; key && i < XP_CAT_COUNT; i++) {
		if (strcmp(xp_categories[i].key, key) == 0) {
			*out = xp_categories[i].id;
			return 0;
		}
	}
	return -1;
}

const struct xp_waste_kind *xp_waste_kind_find(const char *kind)
{
	for (size_t i = 0; kind && i < xp_waste_kind_count; i++)
		if (strcmp(xp_waste_kind_table[i].kind, kind) == 0)
			return &xp_waste_kind_table[i];
	return NULL;
}

const struct xp_counter_name *xp_counter_name_find(const char *name)
{
	for (size_t i = 0; name && i < xp_counter_name_count; i++)
		if (strcmp(xp_counter_name_table[i].name, name) == 0)
			return &xp_counter_name_table[i];
	return NULL;
}
