// SPDX-License-Identifier: MIT
/*
 * domain.c - the domain check. A span's domain is the one theory's stage map
 * gives its stage (the execution-location rule); custom stages go to
 * th_rules.unknown_stage_domain. A writer's declared domain that disagrees is
 * corrected and the correction recorded for the report.
 */
#include "analyze/model.h"

#include <stdlib.h>

#include "lib/grow.h"

int xa_domain_check(struct xa_trace *tr, struct xa_turn *t)
{
	enum th_domain custom = th_stage_domain(NULL);
	size_t ncustom = 0;

	for (size_t i = 0; i < tr->nspans; i++) {
		struct xa_span *s = &tr->spans[i];
		enum th_domain want = s->sp.st ? s->sp.st->domain : custom;
		struct xa_correction *c;

		ncustom += !s->sp.st;
		s->domain = want;
		if (s->synthetic || s->sp.domain == want)
			continue;
		if (xp_grow((void **)&t->corr, &t->cap_corr, t->ncorr + 1, sizeof(*t->corr)))
			return -1;
		c = &t->corr[t->ncorr++];
		c->span_id = s->sp.id;
		snprintf(c->stage, sizeof(c->stage), "%s", s->sp.stage);
		c->declared = s->sp.domain;
		c->corrected = want;
	}
	if (ncustom)
		xa_note(t, "%zu span(s) with a custom stage charged to %s (%s)", ncustom,
			th_domains[custom].key, th_rules.unknown_stage_l3);
	return 0;
}
