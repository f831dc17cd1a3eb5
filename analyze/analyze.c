// SPDX-License-Identifier: MIT
/*
 * analyze.c - runs the pipeline (load -> normalize -> domain -> categorize ->
 * metrics -> drill) for one turn, and streams a session through it one turn
 * at a time into aggregate.c. Also the option parsers of analyze.h.
 */
#include "analyze/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void xa_options_default(struct xa_options *o)
{
	memset(o, 0, sizeof(*o));
	o->format = XA_FMT_JSON;
	o->depth = 3;
	o->grades = (1u << XP_GRADE_COUNT) - 1;
	o->threshold = th_rules.drill_threshold;
}

const char *const xa_format_names[3] = { "json", "text", "html" };

/* Everything after loading; prev: the previous turn's features in session mode. */
static int run_pipeline(struct xa_trace *tr, const struct xa_options *o, const double *prev,
			int session, struct xa_turn *t)
{
	t->head = tr->head;
	t->start = tr->start;
	t->wall = tr->end - tr->start;
	t->warnings = (unsigned)tr->turn->quality.nwarnings;
	t->dropped_events = tr->turn->quality.dropped_events;
	/* The fixed arrays of model.h must hold theory's tables. */
	if (th_l3_count > XA_MAX_L3 || xa_var_count() > XA_NVAR || xa_normalize(tr) || xa_domain_check(tr, t) ||
	    xa_categorize(tr, t))
		return -1;
	if (!tr->nspans)
		xa_note(t, "the turn has no spans");
	if (xa_tokens(tr, t, o->prices ? o->prices : xa_prices_default()))
		return -1;
	xa_metrics(tr, t);
	if (session)
		xa_metrics_session(t, prev);
	xa_drill(t, o);
	return 0;
}

void xa_turn_free(struct xa_turn *t)
{
	if (!t)
		return;
	free(t->corr);
	free(t->segs);
	free(t->seg_stage);
	free(t->seg_waste);
	free(t->seg_tool);
	free(t->tok_ns);
	free(t->calls);
	free(t);
}

/* Load and analyse one file into a fresh xa_turn. */
static int analyze_file(const char *path, const struct xa_options *o, const double *prev,
			int session, struct xa_turn **out, FILE *err, char *first, size_t flen)
{
	struct xa_trace tr;
	struct xa_turn *t;
	int rc = xa_load_turn(path, &tr, err, first, flen);

	*out = NULL;
	if (rc)
		return rc;
	t = calloc(1, sizeof(*t));
	if (t && !run_pipeline(&tr, o, prev, session, t))
		*out = t;
	else
		xa_turn_free(t);
	xa_trace_free(&tr);
	return *out ? XA_OK : XA_EFAIL;
}

int xa_analyze_turn_file(const char *path, const struct xa_options *o, struct xa_turn **out,
			 FILE *err)
{
	return analyze_file(path, o, NULL, 0, out, err, NULL, 0);
}

/* Analyse turn `idx` of the session and fold it in; skipped files are counted. */
static int session_turn(struct xa_session *s, const struct xa_scan *sc, int64_t idx, FILE *err)
{
	char path[700], first[2 * XA_REASON];
	struct xa_turn *t;
	int rc;

	if (xa_scan_path(sc, idx, path, sizeof(path)))
		return 0;
	rc = analyze_file(path, &s->opt, s->have_prev ? s->prev_feat : NULL, 1, &t, NULL, first,
			  sizeof(first));
	if (rc == XA_EINVALID) {
		if (err)
			fprintf(err, "xperf analyze: skipped %s\n", first);
		if (s->skipped < XA_SKIP_SHOWN)
			snprintf(s->skip_msg[s->skipped], sizeof(s->skip_msg[0]), "%s", first);
		s->skipped++;
		return 0;
	}
	if (rc)
		return rc;
	rc = xa_session_add(s, t) ? XA_EFAIL : XA_OK;
	memcpy(s->prev_feat, t->feat, sizeof(s->prev_feat));
	s->have_prev = 1;
	xa_turn_free(t);
	return rc;
}

int xa_analyze_session_dir(const char *dir, const struct xa_options *o, struct xa_session **out,
			   FILE *err)
{
	struct xa_session *s = calloc(1, sizeof(*s));
	struct xa_scan sc;
	int rc = XA_OK;

	*out = NULL;
	if (!s || !(s->total = calloc(1, sizeof(*s->total))) || !(s->rows = tmpfile())) {
		xa_session_free(s);
		return XA_EFAIL;
	}
	s->opt = *o;
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	if (xa_scan_dir(dir, &sc)) {
		if (err)
			fprintf(err, "xperf analyze: %s: cannot read the directory: %s\n", dir,
				strerror(errno));
		xa_session_free(s);
		return XA_EINVALID;
	}
	/* Index gaps cost one stat() each; the walk ends once every file was seen. */
	for (int64_t i = sc.lo; i <= sc.hi && s->turns + s->skipped < sc.nfiles && rc == XA_OK; i++)
		rc = session_turn(s, &sc, i, err);
	if (rc == XA_OK && !s->turns) {
		if (err)
			fprintf(err, "xperf analyze: %s: no valid turn file (turn_NNN.json)\n",
				dir);
		rc = XA_EINVALID;
	}
	if (rc) {
		xa_session_free(s);
		return rc;
	}
	xa_session_finish(s);
	*out = s;
	return XA_OK;
}

void xa_session_free(struct xa_session *s)
{
	if (!s)
		return;
	if (s->rows)
		fclose(s->rows);
	xa_turn_free(s->total);
	free(s);
}
