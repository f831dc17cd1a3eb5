/* SPDX-License-Identifier: MIT */
/*
 * pipeline.c - the stage order of the original (timing alone first, then
 * Valgrind, then scoring and outputs), except that the ledger comparison
 * happens before the report is written, so the report shows it.
 */
#include "rubric/pipeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/atomic_file.h"
#include "lib/grow.h"
#include "lib/in_file.h"
#include "rubric/findings.h"
#include "rubric/measure.h"
#include "rubric/objdump.h"
#include "rubric/outcome.h"
#include "rubric/report.h"
#include "rubric/runner.h"
#include "rubric/stats.h"
#include "rubric/summary.h"
#include "rubric/valgrind.h"
#include "rubric/vgparse.h"

static int write_out(const char *path, const char *data, size_t len)
{
	int rc = data ? xp_write_file_atomic(path, data, len) : -ENOMEM;

	if (rc)
		fprintf(stderr, "xperf rubric: %s: %s\n", path, xp_out_strerror(rc));
	return rc;
}

static int write_json(const char *path, cJSON *doc)
{
	char *s = cJSON_Print(doc);
	int rc;

	cJSON_Delete(doc);
	if (!s)
		return write_out(path, NULL, 0);
	size_t n = strlen(s), cap = n + 1;

	xp_buf_append(&s, &n, &cap, "\n", 1); /* out of memory: written without it */
	rc = write_out(path, s, n);
	free(s);
	return rc;
}

/* Baseline: 0 read, -1 invalid (reported). */
static int read_baseline(const struct rb_opts *o, struct rb_ref *ref,
			 struct rb_base_mem *mem)
{
	char *buf, err[XP_RB_WHY + 512];
	size_t len;
	int rc = xp_in_read(o->baseline, XP_VG_MAX_BYTES, &buf, &len);

	if (rc) {
		fprintf(stderr, "xperf rubric: %s: %s\n", o->baseline, xp_in_strerror(rc));
		return -1;
	}
	rc = rb_baseline_parse(o->baseline, buf, len, ref, mem, err, sizeof(err));
	free(buf);
	if (rc)
		fprintf(stderr, "xperf rubric: %s\n", err);
	return rc;
}

/* Ledger: a missing file is an empty history. buf/len keep the bytes for the append. */
static int read_ledger(const struct rb_opts *o, struct rb_outcome *oc, char **buf,
		       size_t *len)
{
	int rc = xp_in_read(o->ledger, XP_VG_MAX_BYTES, buf, len);

	if (rc == -ENOENT) {
		*buf = NULL;
		*len = 0;
	} else if (rc) {
		fprintf(stderr, "xperf rubric: %s: %s\n", o->ledger, xp_in_strerror(rc));
		return -1;
	}
	rb_ledger_parse(o->ledger, *buf ? *buf : "", *len, &oc->ledger);
	for (int i = 0; i < oc->ledger.corrupt && i < 4; i++)
		fprintf(stderr, "xperf rubric: warning: %s\n", oc->ledger.warnings[i]);
	return 0;
}

/* Old ledger bytes + this run's line, written whole (never a torn line). */
static int append_ledger(const struct rb_opts *o, const struct rb_outcome *oc,
			 const char *old, size_t len)
{
	char *line = rb_ledger_line(oc), *all = NULL;
	size_t n = 0, cap = 0;
	int sep = len && old[len - 1] != '\n', rc = -1;

	if (line && !xp_buf_append(&all, &n, &cap, old, len) &&
	    !xp_buf_append(&all, &n, &cap, "\n", (size_t)sep) &&
	    !xp_buf_append(&all, &n, &cap, line, strlen(line)) &&
	    !xp_buf_append(&all, &n, &cap, "\n", 1))
		rc = write_out(o->ledger, all, n);
	free(all);
	free(line);
	return rc;
}

static void percentiles(const struct rb_meas *m, struct rb_outcome *oc)
{
	double all[XP_RB_MAX_SIZES * XP_RB_MAX_REPS];
	size_t n = 0;

	for (int i = 0; i < m->nsizes; i++)
		for (int j = 0; j < m->size[i].nruns; j++)
			all[n++] = m->size[i].wall[j];
	if (n < 2)
		return;
	oc->have_pct = 1;
	oc->p50 = rb_percentile(all, n, 50);
	oc->p95 = rb_percentile(all, n, 95);
	oc->p99 = rb_percentile(all, n, 99);
}

static void print_console(const struct rb_outcome *oc)
{
	int scored = 0;

	for (int d = 0; d < D_COUNT; d++) {
		const struct rb_score *s = &oc->r.dim[d];
		scored += s->score >= 0;
		printf("%-20s %-12s %s\n", rb_dim_names[d], rb_tierv_names[s->tier], s->note);
	}
	printf("Total: %d/%d, dimensions scored: %d/7; outputs in %s\n", oc->r.total,
	       oc->r.max_possible, scored, oc->o->out_dir);
}

static int write_outputs(const struct rb_opts *o, const struct rb_outcome *oc)
{
	char path[4096];
	char *md = NULL;
	size_t len = 0;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/benchmark_report.md", o->out_dir);
	rc |= rb_report_md(oc, &md, &len) ? write_out(path, NULL, 0) : write_out(path, md, len);
	free(md);
	snprintf(path, sizeof(path), "%s/benchmark_summary.json", o->out_dir);
	rc |= write_json(path, rb_summary_json(oc));
	if (o->findings_out)
		rc |= write_json(o->findings_out,
				 rb_findings_json(&oc->r, o->root ? o->root : "."));
	return rc;
}

/* Named outputs that could never be written are refused before any run: 0 or -1. */
static int check_outputs(const struct rb_opts *o)
{
	const char *paths[] = { o->findings_out, o->ledger };

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		int rc = paths[i] ? xp_out_check(paths[i]) : 0;

		if (rc) {
			fprintf(stderr, "xperf rubric: %s: %s\n", paths[i], xp_out_strerror(rc));
			return -1;
		}
	}
	return 0;
}

int rb_pipeline(const struct rb_opts *o)
{
	static struct rb_meas m;
	static struct rb_outcome oc;
	struct rb_ref base;
	struct rb_base_mem mem = { 0 };
	char err[XP_RB_WHY], *ledger_buf = NULL;
	size_t ledger_len = 0;

	rb_catch_signals();
	memset(&m, 0, sizeof(m));
	memset(&oc, 0, sizeof(oc));
	oc.o = o;
	oc.m = &m;
	rb_env_probe(&oc.env);
	if (check_outputs(o) || (o->baseline && read_baseline(o, &base, &mem)) ||
	    (o->ledger && read_ledger(o, &oc, &ledger_buf, &ledger_len)))
		return 2;
	int trc = rb_measure(o, &m, err, sizeof(err));
	if (trc == 2) {
		fprintf(stderr, "xperf rubric: %s\n", err);
		return 2;
	}
	if (trc == 1)
		fprintf(stderr, "xperf rubric: timing stopped: %s\n", m.timing_error);
	if (m.attach_failed)
		fprintf(stderr, "xperf rubric: --attach failed on %d of %d runs; first: %s\n",
			m.attach_failed, m.attach_runs, m.attach_error);
	int failed = rb_valgrind(o, &m);
	failed += rb_objdump(o, &m) < 0;
	rb_score_all(&m, o, o->baseline ? &mem : NULL, &oc.r);
	if (o->baseline)
		rb_regress(&base, &oc.r, &oc.base_regr);
	if (oc.ledger.entries) {
		rb_regress(&oc.ledger.last, &oc.r, &oc.vs_last);
		rb_regress(&oc.ledger.best, &oc.r, &oc.vs_best);
	}
	percentiles(&m, &oc);
	int wrc = xp_mkdir_p(o->out_dir);
	if (wrc)
		fprintf(stderr, "xperf rubric: cannot create %s: %s\n", o->out_dir, strerror(-wrc));
	else
		wrc = write_outputs(o, &oc);
	if (o->ledger)
		wrc |= append_ledger(o, &oc, ledger_buf ? ledger_buf : "", ledger_len);
	free(ledger_buf);
	rb_cg_free(&m.cg);
	print_console(&oc);
	const struct rb_stage *stages[] = { &m.cg_stage, &m.cl_stage, &m.ms_stage,
					       &m.asm_stage };
	for (size_t i = 0; failed && i < sizeof(stages) / sizeof(stages[0]); i++)
		if (!stages[i]->ran && stages[i]->artifact[0])
			fprintf(stderr, "xperf rubric: %s\n", stages[i]->why);
	return trc || failed || wrc || m.attach_failed || rb_interrupted ? 1 : 0;
}
