/* SPDX-License-Identifier: MIT */
/*
 * measure.c - timed runs, serial and before any Valgrind stage (timing is
 * the noise-sensitive part). A progress bar goes to stderr only when stderr
 * is a terminal, so logs and pipes stay clean.
 */
#include "rubric/measure.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rubric/attach.h"
#include "rubric/cmdline.h"
#include "rubric/runner.h"
#include "rubric/stats.h"

struct progress {
	int on, done, total;
};

static void progress_step(struct progress *p, long size)
{
	const int width = 30;

	p->done++;
	if (!p->on)
		return;
	int fill = p->total ? p->done * width / p->total : width;
	fprintf(stderr, "\r[%.*s%*s] %d/%d runs, size %ld ", fill, "##############################",
		width - fill, "", p->done, p->total, size);
	if (p->done == p->total)
		fputc('\n', stderr);
}

void rb_size_stats(struct rb_size *z, const struct rb_run *runs)
{
	double v[XP_RB_MAX_REPS];

	z->wall_median = rb_median(z->wall, (size_t)z->nruns);
	z->wall_mean = rb_mean(z->wall, (size_t)z->nruns);
	z->wall_cv = rb_cv_pct(z->wall, (size_t)z->nruns);
	memset(&z->ctr, 0, sizeof(z->ctr));
	for (int c = 0; c < XP_CTR_COUNT; c++) {
		int n = 0;
		for (int i = 0; i < z->nruns; i++) {
			if (runs[i].ctr.mask & (1ull << c))
				v[n++] = runs[i].ctr.value[c];
			else
				memcpy(z->ctr.why[c], runs[i].ctr.why[c], sizeof(z->ctr.why[c]));
		}
		/* A counter counts only when every run had it. */
		if (n == z->nruns && n > 0) {
			z->ctr.mask |= 1ull << c;
			z->ctr.value[c] = rb_median(v, (size_t)n);
			z->ctr.why[c][0] = '\0';
		}
	}
}

/* Keep a scored run: its wall time, peak RSS and counters, and how --attach went. */
static void keep_run(struct rb_meas *m, struct rb_size *z, const struct rb_run *r,
		     int attached)
{
	struct rb_run_rec *rec = &z->rec[z->nruns];

	rec->maxrss_kb = r->maxrss_kb;
	rec->mask = r->ctr.mask;
	memcpy(rec->value, r->ctr.value, sizeof(rec->value));
	z->rss_exact = (z->nruns == 0 || z->rss_exact) && r->rss_exact;
	z->wall[z->nruns++] = r->wall_s;
	if (r->maxrss_kb > z->maxrss_kb)
		z->maxrss_kb = r->maxrss_kb;
	m->attach_runs += attached;
	if (!r->attach_err[0])
		return;
	if (m->attach_failed++ == 0)
		snprintf(m->attach_error, sizeof(m->attach_error), "size %ld run %d: %s", z->size,
			 z->nruns, r->attach_err);
}

/* Warm-up plus reps runs of one size. Returns 0, 1 (run failed) or 2 (cannot execute). */
static int measure_size(const struct rb_opts *o, struct rb_meas *m, struct rb_size *z,
			int has_size, struct progress *pg, char *err, size_t errlen)
{
	struct rb_run runs[XP_RB_MAX_REPS], warm;
	struct rb_attach_spec spec = { o->attach, z->size, 0, o->attach_wait_s };
	struct rb_run_io io = { o->root, NULL, NULL, 1, o->timeout_s, NULL };
	struct rb_cmd cmd;

	if (rb_cmd_build(o->target, o->binary, z->size, has_size, &cmd, err, errlen))
		return 2;
	for (int i = -1; i < o->reps; i++) {
		struct rb_run *r = i < 0 ? &warm : &runs[i];
		if (rb_interrupted) {
			/* Keep what was measured when it still has a spread. */
			snprintf(err, errlen, "interrupted by signal %d", (int)rb_interrupted);
			if (z->nruns >= 2)
				rb_size_stats(z, runs);
			else
				z->nruns = 0;
			return 1;
		}
		/* --attach observes the scored runs only, numbered as {RUN}. */
		spec.run = i + 1;
		io.attach = o->attach && i >= 0 ? &spec : NULL;
		enum rb_run_status st = rb_run_once(cmd.argv, &io, r, err, errlen);
		progress_step(pg, z->size);
		if (st == XP_RUN_NOEXEC)
			return 2;
		if (st != XP_RUN_OK) {
			z->nruns = 0; /* a size is scored on complete runs only */
			return 1;
		}
		if (i >= 0)
			keep_run(m, z, r, io.attach != NULL);
	}
	rb_size_stats(z, runs);
	return 0;
}

int rb_measure(const struct rb_opts *o, struct rb_meas *m, char *err, size_t errlen)
{
	int groups = o->nsizes ? o->nsizes : 1;
	struct progress pg = { isatty(2), 0, groups * (o->reps + 1) };

	m->nsizes = groups;
	for (int i = 0; i < groups; i++) {
		struct rb_size *z = &m->size[i];
		char why[XP_RB_WHY];

		z->size = o->nsizes ? o->sizes[i] : 0;
		int rc = measure_size(o, m, z, o->nsizes > 0, &pg, why, sizeof(why));
		if (rc == 2) {
			snprintf(err, errlen, "%s", why);
			return 2;
		}
		if (rc == 1) {
			snprintf(m->timing_error, sizeof(m->timing_error), "size %ld: %s", z->size,
				 why);
			if (pg.on)
				fputc('\n', stderr);
			return 1;
		}
	}
	return 0;
}
