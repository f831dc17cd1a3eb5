// SPDX-License-Identifier: MIT
/*
 * diff.c - `xperf diff A B`: did a change move time? Each side is a session
 * directory or a directory of sessions; every turn is analysed and kept as one
 * row of ns per L1, L2 and L3 point. Per point: ms per turn (mean over turns)
 * and time share (sum / wall sum) on each side, the change B - A, and a
 * percentile bootstrap confidence interval of the change: turns resampled with
 * replacement within each side, the same resample for every point, from a
 * seeded generator (splitmix64), so that a run is reproducible. A point moved
 * significantly when the interval of its ms-per-turn change excludes 0 and the
 * change is at least max(min_ms, min_rel x A's mean turn time) (analyze/README.md,
 * "Diff").
 */
#include "analyze/diff.h"
#include "analyze/model.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/cmp.h"
#include "lib/grow.h"

void xa_diff_options_default(struct xa_diff_options *o)
{
	memset(o, 0, sizeof(*o));
	o->format = XA_FMT_TEXT;
	o->resamples = 2000;
	o->seed = 1;
	o->confidence = 0.95;
	o->min_ms = 1.0;
	o->min_rel = 0.02;
}

/* The point id and level of column c (L1 categories, then L2, then L3 in theory's order). */
static void column(size_t c, const char **id, int *level)
{
	if (c < XP_CAT_COUNT) {
		*id = th_categories[c].key;
		*level = 1;
	} else if (c < XP_CAT_COUNT + th_l2_count) {
		*id = th_l2_table[c - XP_CAT_COUNT].id;
		*level = 2;
	} else {
		*id = th_l3_table[c - XP_CAT_COUNT - th_l2_count].id;
		*level = 3;
	}
}

/* Points compared: 4 categories + theory's L2 and L3 points. */
static size_t columns(void)
{
	return XP_CAT_COUNT + th_l2_count + th_l3_count;
}

static int add_row(struct xa_diff_side *s, const struct xa_turn *t)
{
	size_t nc = columns(), c = 0;
	double *row;

	if (xp_grow((void **)&s->rows, &s->cap, s->n + 1, (nc + 1) * sizeof(*s->rows)))
		return -1;
	row = &s->rows[s->n++ * (nc + 1)];
	row[c++] = (double)t->wall;
	for (int k = 0; k < XP_CAT_COUNT; k++)
		row[c++] = (double)t->cat_ns[k];
	for (size_t k = 0; k < th_l2_count; k++)
		row[c++] = (double)t->l2_ns[th_l2_table[k].domain][th_l2_table[k].category];
	for (size_t k = 0; k < th_l3_count; k++)
		row[c++] = (double)t->l3[k].ns;
	return 0;
}

/* Every turn of one session directory, in index order. */
static int read_session(struct xa_diff_side *s, const char *dir, FILE *err)
{
	struct xa_options o;
	struct xa_scan sc;
	char path[700];

	xa_options_default(&o);
	if (xa_scan_dir(dir, &sc))
		return -1;
	for (int64_t i = sc.lo; i <= sc.hi && sc.nfiles; i++) {
		struct xa_turn *t = NULL;
		int rc;

		if (xa_scan_path(&sc, i, path, sizeof(path)))
			continue;
		rc = xa_analyze_turn_file(path, &o, &t, NULL);
		if (rc == XA_EINVALID) {
			if (err)
				fprintf(err, "xperf diff: skipped %s (invalid; `xperf validate` says why)\n",
					path);
			s->skipped++;
			continue;
		}
		if (rc || add_row(s, t)) {
			xa_turn_free(t);
			return -1;
		}
		xa_turn_free(t);
	}
	s->sessions += sc.nfiles > 0;
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/*
 * A session directory, or a directory of sessions (its subdirectories, by name): XA_OK,
 * XA_EINVALID (no such directory, or unreadable), XA_EFAIL (memory, analysis failure).
 */
static int side_read(struct xa_diff_side *s, const char *path, FILE *err)
{
	struct xa_scan sc;
	struct dirent **names;
	int n, rc = 0;

	snprintf(s->path, sizeof(s->path), "%s", path);
	if (xa_scan_dir(path, &sc)) {
		if (err)
			fprintf(err, "xperf diff: %s: no such directory, or unreadable\n", path);
		return XA_EINVALID;
	}
	if (sc.nfiles)
		return read_session(s, path, err) ? XA_EFAIL : XA_OK;
	n = scandir(path, &names, NULL, by_name);
	for (int i = 0; i < n; i++) {
		char sub[1024];
		struct stat st;

		if (!rc && names[i]->d_name[0] != '.' &&
		    snprintf(sub, sizeof(sub), "%s/%s", path, names[i]->d_name) < (int)sizeof(sub) &&
		    !lstat(sub, &st) && S_ISDIR(st.st_mode))
			rc = read_session(s, sub, err) ? XA_EFAIL : XA_OK;
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return n < 0 ? XA_EINVALID : rc;
}

/* splitmix64: small, seedable, good enough to draw resample indexes. */
static uint64_t next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Column sums over a resample of side s (or over all of it when rng is NULL). */
static void sums(const struct xa_diff_side *s, uint64_t *rng, double *out)
{
	size_t nc = columns() + 1;

	memset(out, 0, nc * sizeof(*out));
	for (size_t i = 0; i < s->n; i++) {
		const double *row = &s->rows[(rng ? next(rng) % s->n : i) * nc];

		for (size_t c = 0; c < nc; c++)
			out[c] += row[c];
	}
}

/* Change in ms per turn and in share of column c, from the two sides' sums. */
static void change(const double *a, size_t na, const double *b, size_t nb, size_t c,
		   double *ms, double *share)
{
	*ms = (b[c + 1] / (double)nb - a[c + 1] / (double)na) / 1e6;
	*share = (b[0] > 0 ? b[c + 1] / b[0] : 0) - (a[0] > 0 ? a[c + 1] / a[0] : 0);
}

/* The percentile interval of the resampled changes v (sorted in place). */
static void interval(double *v, unsigned n, double conf, double *lo, double *hi)
{
	double tail = (1 - conf) / 2;

	qsort(v, n, sizeof(*v), xp_cmp_double);
	*lo = v[(size_t)floor(tail * (n - 1))];
	*hi = v[(size_t)ceil((1 - tail) * (n - 1))];
}

static void fill_point(struct xa_diff *d, size_t c, const double *sa, const double *sb,
		       double *ms_v, double *sh_v)
{
	struct xa_diff_point *p = &d->points[c];
	double floor_ms = d->opt.min_rel * sa[0] / (double)d->a.n / 1e6;

	column(c, &p->id, &p->level);
	p->a_ms = sa[c + 1] / (double)d->a.n / 1e6;
	p->b_ms = sb[c + 1] / (double)d->b.n / 1e6;
	p->a_share = sa[0] > 0 ? sa[c + 1] / sa[0] : 0;
	p->b_share = sb[0] > 0 ? sb[c + 1] / sb[0] : 0;
	change(sa, d->a.n, sb, d->b.n, c, &p->d_ms, &p->d_share);
	interval(ms_v, d->opt.resamples, d->opt.confidence, &p->ms_lo, &p->ms_hi);
	interval(sh_v, d->opt.resamples, d->opt.confidence, &p->share_lo, &p->share_hi);
	p->significant = (p->ms_lo > 0 || p->ms_hi < 0) &&
			 fabs(p->d_ms) >= (floor_ms > d->opt.min_ms ? floor_ms : d->opt.min_ms);
}

/* The bootstrap: every resample's change for every column, then each point's interval. */
static int bootstrap(struct xa_diff *d)
{
	size_t nc = columns(), r = d->opt.resamples;
	double *sa = calloc(nc + 1, sizeof(double)), *sb = calloc(nc + 1, sizeof(double));
	double *ms = calloc(nc * r, sizeof(double)), *sh = calloc(nc * r, sizeof(double));
	uint64_t rng = d->opt.seed;
	int rc = -1;

	if (!sa || !sb || !ms || !sh || !(d->points = calloc(nc, sizeof(*d->points))))
		goto out;
	for (size_t k = 0; k < r; k++) {
		sums(&d->a, &rng, sa);
		sums(&d->b, &rng, sb);
		for (size_t c = 0; c < nc; c++)
			change(sa, d->a.n, sb, d->b.n, c, &ms[c * r + k], &sh[c * r + k]);
	}
	sums(&d->a, NULL, sa);
	sums(&d->b, NULL, sb);
	for (size_t c = 0; c < nc; c++)
		fill_point(d, c, sa, sb, &ms[c * r], &sh[c * r]);
	d->a.wall_ms = sa[0] / (double)d->a.n / 1e6;
	d->b.wall_ms = sb[0] / (double)d->b.n / 1e6;
	d->npoints = nc;
	rc = 0;
out:
	free(sa);
	free(sb);
	free(ms);
	free(sh);
	return rc;
}

int xa_diff_run(const char *a, const char *b, const struct xa_diff_options *o,
		struct xa_diff **out, FILE *err)
{
	struct xa_diff *d = calloc(1, sizeof(*d));
	int rc;

	*out = NULL;
	if (!d)
		return XA_EFAIL;
	d->opt = *o;
	rc = side_read(&d->a, a, err);
	if (rc == XA_OK)
		rc = side_read(&d->b, b, err);
	if (rc == XA_OK && (!d->a.n || !d->b.n)) {
		if (err)
			fprintf(err, "xperf diff: %s: no valid turn file (turn_NNN.json)\n",
				d->a.n ? b : a);
		rc = XA_EINVALID;
	}
	if (rc == XA_OK && bootstrap(d))
		rc = XA_EFAIL;
	if (rc)
		xa_diff_free(d);
	else
		*out = d;
	return rc;
}

void xa_diff_free(struct xa_diff *d)
{
	if (!d)
		return;
	free(d->a.rows);
	free(d->b.rows);
	free(d->points);
	free(d);
}
