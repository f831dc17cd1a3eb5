// SPDX-License-Identifier: MIT
/*
 * walk.c - hand every turn of the inputs to a format, one turn in memory at
 * a time: a file is read by the core (core/read.h: validated, typed) and the
 * formats read that typed turn; a session
 * directory is walked in turn-index order by the analyzer's scanner. The
 * first invalid input stops the walk with its first error as one line.
 *
 * Dating: every turn of one boot gets the offset of the first clock anchor
 * of that boot in the export, so that times of one boot keep their exact
 * order and gaps (the wall clock may be slewed between two anchors), and
 * turns of other boots or nodes land where the wall clock says.
 */
#include "export/walk.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/analyze.h"
#include "core/read.h"
#include "lib/clock_anchor.h"
#include "lib/grow.h"

/* A session of the export: its id and the turn indexes seen, sorted. */
struct session {
	char *id;
	int64_t *turns;
	size_t nturns, cap;
};

/* A boot seen in the export, and the offset its turns are dated by. */
struct boot {
	char id[XP_BOOT_ID_LEN + 1];
	int64_t offset;
};

struct walk {
	const struct xe_options *opt;
	struct boot *boots;
	size_t nboots, cap_boots;
	const struct xe_format_ops *ops;
	void *st;
	struct xe_out *o;
	FILE *err;
	struct session *sessions; /* in order of first appearance */
	size_t nsessions, cap_sessions;
	int prev;                 /* session of the previous turn, 0 before the first */
};

struct first_error {
	char line[768];
	int count;
};

static void keep_first(const struct sc_verror *e, void *ctx)
{
	struct first_error *f = ctx;

	if (!f->count++)
		sc_verror_format(e, f->line, sizeof(f->line));
}

/* Number t's session (1-based, first appearance); 0 ok, -1 memory. */
static int number_session(struct walk *w, struct xe_turn *t)
{
	size_t i = 0;

	while (i < w->nsessions && strcmp(w->sessions[i].id, t->turn->session_id))
		i++;
	if (i == w->nsessions) {
		if (xp_grow((void **)&w->sessions, &w->cap_sessions, i + 1, sizeof(*w->sessions)))
			return -1;
		w->sessions[i] = (struct session){ .id = strdup(t->turn->session_id) };
		if (!w->sessions[i].id)
			return -1;
		w->nsessions++;
		t->first_of_session = 1;
	}
	t->session = (int)i + 1;
	t->session_changed = t->session != w->prev;
	w->prev = t->session;
	return 0;
}

/* Record t's index in its session: 0 new, 1 seen before (its ids would repeat), -1 memory. */
static int seen_before(struct walk *w, const struct xe_turn *t)
{
	struct session *s = &w->sessions[t->session - 1];
	size_t lo = 0, hi = s->nturns;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->turns[mid] < t->turn->index)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nturns && s->turns[lo] == t->turn->index)
		return 1;
	if (xp_grow((void **)&s->turns, &s->cap, s->nturns + 1, sizeof(*s->turns)))
		return -1;
	memmove(&s->turns[lo + 1], &s->turns[lo], (s->nturns - lo) * sizeof(*s->turns));
	s->turns[lo] = t->turn->index;
	s->nturns++;
	return 0;
}

/* t->offset and t->boot_id from t's clock anchor and the boots seen before; -1 memory. */
static int date_turn(struct walk *w, struct xe_turn *t)
{
	const struct xp_clock_anchor *a = &t->turn->anchor;
	size_t i = 0;

	t->boot_id = t->turn->has_anchor && a->boot_id[0] ? a->boot_id : NULL;
	t->offset = w->opt->clock_offset_ns;
	if (!t->turn->has_anchor || w->opt->clock_offset_forced)
		return 0;
	t->offset = xp_clock_anchor_offset(a);
	if (!t->boot_id)
		return 0;
	while (i < w->nboots && strcmp(w->boots[i].id, t->boot_id))
		i++;
	if (i < w->nboots) {
		t->offset = w->boots[i].offset;
		return 0;
	}
	if (xp_grow((void **)&w->boots, &w->cap_boots, i + 1, sizeof(*w->boots)))
		return -1;
	snprintf(w->boots[i].id, sizeof(w->boots[i].id), "%s", t->boot_id);
	w->boots[i].offset = t->offset;
	w->nboots++;
	return 0;
}

static int walk_turn(struct walk *w, struct xe_turn *t)
{
	int seen, rc;

	if (date_turn(w, t) || number_session(w, t) || (seen = seen_before(w, t)) < 0 ||
	    xe_spans_build(t))
		return XE_EFAIL;
	if (seen) {
		fprintf(w->err, "xperf export: %s: turn %lld of session %s is given twice\n", t->path,
			(long long)t->turn->index, t->turn->session_id);
		return XE_EINVALID;
	}
	rc = w->ops->turn(w->st, t, w->o);
	return rc == XE_EINVALID ? rc : rc || w->o->failed ? XE_EFAIL : XE_OK;
}

static int walk_file(struct walk *w, const char *path)
{
	struct first_error first = { "", 0 };
	struct xe_turn t = { .path = path };
	struct tt_turn *turn = tt_turn_load(path, keep_first, &first, NULL);
	int rc;

	if (!turn) {
		fprintf(w->err, "xperf export: %s", first.line);
		if (first.count > 1)
			fprintf(w->err, " (and %d more: xperf validate lists them)", first.count - 1);
		fputc('\n', w->err);
		return XE_EINVALID;
	}
	t.turn = turn;
	rc = walk_turn(w, &t);
	xe_spans_free(&t);
	tt_turn_free(turn);
	return rc;
}

static int walk_dir(struct walk *w, const char *dir)
{
	struct xa_scan sc;
	char path[1024];
	int rc = XE_OK, walked = 0;

	if (xa_scan_dir(dir, &sc) || !sc.nfiles) {
		fprintf(w->err, "xperf export: %s: %s\n", dir,
			sc.dir[0] ? "no turn_NNN.json file in this directory"
				  : "cannot read the directory");
		return XE_EINVALID;
	}
	for (int64_t i = sc.lo; rc == XE_OK && i <= sc.hi; i++)
		if (!xa_scan_path(&sc, i, path, sizeof(path)))
			rc = walk_file(w, path), walked++;
	if (rc == XE_OK && !walked) {
		fprintf(w->err, "xperf export: %s: no readable turn_NNN.json file\n", dir);
		rc = XE_EINVALID;
	}
	return rc;
}

int xe_walk(char *const *paths, int npaths, const struct xe_options *opt,
	    const struct xe_format_ops *ops, void *st, struct xe_out *o, FILE *err)
{
	struct walk w = { .opt = opt, .ops = ops, .st = st, .o = o, .err = err };
	int rc = ops->begin(st, o) ? XE_EFAIL : XE_OK;
	struct stat sb;

	for (int i = 0; rc == XE_OK && i < npaths; i++)
		rc = !stat(paths[i], &sb) && S_ISDIR(sb.st_mode) ? walk_dir(&w, paths[i])
								  : walk_file(&w, paths[i]);
	if (rc == XE_OK && (ops->end(st, o) || o->failed))
		rc = XE_EFAIL;
	for (size_t i = 0; i < w.nsessions; i++) {
		free(w.sessions[i].id);
		free(w.sessions[i].turns);
	}
	free(w.sessions);
	free(w.boots);
	return rc;
}
