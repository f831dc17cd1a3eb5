/* SPDX-License-Identifier: MIT */
/*
 * valgrind.c - run one Valgrind tool on the target and parse its raw output.
 * Stages run one after another: the machine's cores are shared, and
 * Valgrind serialises the target's threads anyway.
 */
#include "rubric/valgrind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/atomic_file.h"
#include "lib/in_file.h"
#include "rubric/cmdline.h"
#include "rubric/env.h"
#include "rubric/runner.h"
#include "rubric/vgparse.h"

enum tool_kind { CACHEGRIND, CALLGRIND, MASSIF };

/* A tool runs as --tool=<name> --<name>-out-file=<dir>/<name>.out. */
struct tool {
	enum tool_kind kind;
	const char *name;
	const char *dir;      /* artifact folder under out-dir */
	enum rb_tier tier; /* lowest tier that runs it */
	const char *extra[6]; /* more options */
};

static const struct tool tools[] = {
	{ CACHEGRIND, "cachegrind", "tier2", XP_RB_MEDIUM,
	  { "--cache-sim=yes", "--branch-sim=yes", "--I1=" XP_CG_I1, "--D1=" XP_CG_D1,
	    "--LL=" XP_CG_LL, NULL } },
	{ CALLGRIND, "callgrind", "tier2", XP_RB_MEDIUM, { NULL } },
	{ MASSIF, "massif", "tier3", XP_RB_DEEP, { NULL } },
};

static int parse_stage(const struct tool *t, const struct rb_opts *o, struct rb_meas *m,
		       struct rb_stage *st)
{
	char *buf;
	size_t len;
	int rc = xp_in_read(st->artifact, XP_VG_MAX_BYTES, &buf, &len);

	if (rc) {
		snprintf(st->why, sizeof(st->why), "%s: %s", st->artifact, xp_in_strerror(rc));
		return -1;
	}
	switch (t->kind) {
	case CACHEGRIND:
		rc = rb_cg_parse(st->artifact, buf, len, &m->cg, st->why, sizeof(st->why));
		if (rc == 0 && o->source_prefix)
			rb_cg_filter(&m->cg, o->source_prefix);
		break;
	case CALLGRIND:
		rc = rb_cl_parse(st->artifact, buf, len, o->valgrind_size, &m->cl, st->why,
				 sizeof(st->why));
		break;
	case MASSIF:
		rc = rb_ms_parse(st->artifact, buf, len, &m->ms, st->why, sizeof(st->why));
		break;
	}
	free(buf);
	return rc;
}

/* Run one tool; 0 ran and parsed, 1 skipped by design, -1 failed (st->why). */
static int run_tool(const struct tool *t, const struct rb_opts *o, struct rb_meas *m,
		    struct rb_stage *st)
{
	char dir[512], toolopt[32], outopt[600], errpath[600], err[XP_RB_WHY];
	char *argv[XP_CMD_MAX_ARGS + 16];
	struct rb_cmd cmd;
	struct rb_run run;
	int n = 0;

	if (o->tier < t->tier) {
		snprintf(st->why, sizeof(st->why), "not run in tier %s", rb_tier_names[o->tier]);
		return 1;
	}
	if (rb_interrupted) {
		snprintf(st->why, sizeof(st->why), "interrupted by signal %d",
			 (int)rb_interrupted);
		return 1;
	}
	if (!rb_on_path("valgrind")) {
		snprintf(st->why, sizeof(st->why), "valgrind not found on PATH");
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s/%s", o->out_dir, t->dir);
	snprintf(st->artifact, sizeof(st->artifact), "%s/%s.out", dir, t->name);
	snprintf(toolopt, sizeof(toolopt), "--tool=%s", t->name);
	snprintf(outopt, sizeof(outopt), "--%s-out-file=%s", t->name, st->artifact);
	snprintf(errpath, sizeof(errpath), "%s/%s.log", dir, t->name);
	if (xp_mkdir_p(dir) || rb_cmd_build(o->target, o->binary, o->valgrind_size, o->nsizes > 0,
					    &cmd, err, sizeof(err))) {
		snprintf(st->why, sizeof(st->why), "cannot prepare %s", dir);
		return -1;
	}
	if (isatty(2)) /* the progress line of a stage that can take minutes */
		fprintf(stderr, "%s at size %ld...\n", t->name, o->valgrind_size);
	argv[n++] = "valgrind";
	argv[n++] = toolopt;
	for (int i = 0; t->extra[i]; i++)
		argv[n++] = (char *)t->extra[i];
	argv[n++] = outopt;
	argv[n++] = "--";
	for (int i = 0; i < cmd.argc; i++)
		argv[n++] = cmd.argv[i];
	argv[n] = NULL;
	struct rb_run_io io = { o->root, NULL, errpath, 0, o->timeout_s, NULL };
	if (rb_run_once(argv, &io, &run, err, sizeof(err)) != XP_RUN_OK) {
		snprintf(st->why, sizeof(st->why), "valgrind %s %s (see %s)", t->name, err,
			 errpath);
		return -1;
	}
	if (parse_stage(t, o, m, st))
		return -1;
	st->ran = 1;
	return 0;
}

int rb_valgrind(const struct rb_opts *o, struct rb_meas *m)
{
	struct rb_stage *stages[] = { &m->cg_stage, &m->cl_stage, &m->ms_stage };
	int failed = 0;

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		failed += run_tool(&tools[i], o, m, stages[i]) < 0;
	return failed;
}
