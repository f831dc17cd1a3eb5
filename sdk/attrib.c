/* SPDX-License-Identifier: MIT */
/*
 * attrib.c - the names the SDK checks against theory: fused mark kinds,
 * waste kinds and their L3 point (th_waste_kind_table). Domains
 * and categories are the core's (core/rules.c), applied when the turn is
 * written.
 */
#include <string.h>

#include "sdk/internal.h"

int sd_fused_kind_valid(const char *kind)
{
	for (size_t i = 0; kind && th_fused_kind_names[i]; i++)
		if (strcmp(kind, th_fused_kind_names[i]) == 0)
			return 1;
	return 0;
}

const char *sd_waste_l3(const char *kind)
{
	const struct th_waste_kind *w = kind ? th_waste_kind_find(kind) : NULL;

	return w ? w->l3_id : NULL;
}
