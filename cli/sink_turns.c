/* SPDX-License-Identifier: MIT */
/*
 * sink_turns.c - the turn assembler inside `xperf-bpf record/attach`: every
 * capture record goes through the adapter into an assembler session, which
 * writes DIR/<session>/turn_NNN.json as turns complete (DIR: -o, else
 * .xperf/traces); at the end the last turn is written (incomplete if the
 * agent still runs: detach or --duration) and, unless --quiet, a summary
 * goes to stderr. XPERF_SESSION_ID names the session; XPERF_LLM_PATHS ("SUFFIX=API,...") and XPERF_LLM_HOSTS
 * ("PATTERN,...") extend/restrict what counts as an LLM exchange.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "assemble/adapt.h"
#include "cli/run_report.h"
#include "assemble/session.h"
#include "gpu/turn_gpu.h"
#include "lib/clock_anchor.h"
#include "userspace/procfs.h"
#include "userspace/run/sink.h"

#define XT_MAX_RULES 32

struct turns {
	struct xt_config cfg;
	struct xt_session *s;
	const struct xpb_run *run;
	char *env_copy[2];
	const char *paths[XT_MAX_RULES + 1], *hosts[XT_MAX_RULES + 1];
	struct xt_adapt_buf buf;
	uint64_t malformed;
	time_t started;        /* GPU files written since then belong to this run */
	int gpu_active, gpu_loaded;
	struct gp_gpu_set gpu; /* loaded once, when the held turns are written */
};

/* Splits a comma-separated environment variable into a NULL-terminated list. */
static const char *const *env_list(const char *name, char **copy, const char **out)
{
	const char *v = getenv(name);
	size_t n = 0;

	if (!v || !*v || !(*copy = strdup(v)))
		return NULL;
	for (char *save = NULL, *t = strtok_r(*copy, ",", &save); t && n < XT_MAX_RULES;
	     t = strtok_r(NULL, ",", &save))
		out[n++] = t;
	out[n] = NULL;
	return out;
}

/*
 * GPU records (gpu/README.md) go into a turn before it is written. A
 * collector opens its file when its process starts, the cuda module at the
 * first call: so a file in the GPU directory written since the run began
 * means records may still come for turns already built, which are then held
 * (session.h) and merged and written at the end, when every buffer has been
 * handed over. Without such a file turns are written as they complete.
 */
static int gpu_source_seen(void *state)
{
	struct turns *t = state;
	char dir[PATH_MAX];

	if (!t->gpu_active)
		t->gpu_active = gp_gpu_dir_written_since(
			xpb_gpu_dir(t->run->out_dir, dir, sizeof(dir)), t->started);
	return t->gpu_active;
}

static void gpu_merge(void *state, struct tt_turn *turn)
{
	struct turns *t = state;
	char dir[PATH_MAX], err[PATH_MAX + 64];

	if (!t->gpu_active)
		return;
	if (!t->gpu_loaded &&
	    gp_gpu_load_dir(xpb_gpu_dir(t->run->out_dir, dir, sizeof(dir)), &t->gpu, err,
			    sizeof(err)))
		fprintf(stderr, "xperf-bpf: gpu: %s\n", err);
	t->gpu_loaded = 1;
	if (t->gpu.n && gp_gpu_merge_turn(turn, &t->gpu) < 0)
		fprintf(stderr, "xperf-bpf: gpu: turn %lld: out of memory\n",
			(long long)turn->index);
}

static int turns_begin(const struct xpb_run *run, void **state)
{
	struct turns *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->run = run;
	t->cfg.out_dir = run->out_dir ? run->out_dir : XPB_TRACE_DIR_DEFAULT;
	t->cfg.llm.extra_paths = env_list("XPERF_LLM_PATHS", &t->env_copy[0], t->paths);
	t->cfg.llm.hosts = env_list("XPERF_LLM_HOSTS", &t->env_copy[1], t->hosts);
	t->cfg.cipher_hosts = t->cfg.llm.hosts;
	t->cfg.llm.capture_payloads = run->capture_payloads;
	t->cfg.max_procs = run->bounds ? run->bounds->max_processes : 0;
	t->cfg.max_sched_marks = run->bounds ? run->bounds->max_sched_marks : 0;
	t->cfg.hold = gpu_source_seen;
	t->cfg.before_write = gpu_merge;
	t->cfg.hook_ctx = t;
	t->started = time(NULL);
	*state = t;
	return 0;
}

/* The session starts with the first record: run->session_id is set by then. */
static int session_start(struct turns *t)
{
	t->cfg.session_id = t->run->session_id;
	t->s = xt_session_new(&t->cfg);
	return t->s ? 0 : -ENOMEM;
}

static int turns_event(void *state, const struct xk_hdr *rec)
{
	struct turns *t = state;
	struct xt_event ev;
	int rc = xt_adapt(rec, &ev, &t->buf);

	if (rc < 0)
		t->malformed++;
	if (rc <= 0)
		return 0;
	if (!t->s && session_start(t))
		return -ENOMEM;
	rc = xt_session_event(t->s, &ev) ? -EIO : 0;
	if (t->run->bounds) {	/* the daemon's /metrics reads them while the session runs */
		struct xt_session_stats st = xt_session_stats(t->s);

		t->run->bounds->processes_evicted = st.procs_evicted;
		t->run->bounds->sched_marks_evicted = st.sched_evicted;
	}
	return rc;
}

/* The agent ended: gone, or a zombie waiting to be reaped. */
static int root_exited(pid_t root)
{
	char path[64], buf[512];
	const char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)root);
	if (xpc_proc_read(path, buf, sizeof(buf)) < 0)
		return 1;
	p = strrchr(buf, ')');
	return p && (p[2] == 'Z' || p[2] == 'X');
}

/* Turns the disk did not take: said even with --quiet, counted for capture.json. */
static void report_unwritten(struct turns *t)
{
	struct xt_session_stats st = xt_session_stats(t->s);

	if (!st.unwritten)
		return;
	fprintf(stderr, "xperf-bpf: warning: %d of %d turns not written to %s (the first: %s)\n",
		st.unwritten, st.turns, st.dir, strerror(-st.unwritten_err));
	if (t->run->unwritten)
		t->run->unwritten->turns += (uint64_t)st.unwritten;
}

static int turns_end(void *state, struct xpc *c, const struct xpc_counts *counts)
{
	struct turns *t = state;
	int rc = 0;

	if (c && counts && (t->s || session_start(t) == 0)) {
		xt_session_set_dropped(t->s, xpc_counts_dropped(counts));
		rc = xt_session_finish(t->s, xp_now_ns(CLOCK_MONOTONIC),
				       t->run->exited || root_exited(t->run->root)) ? -EIO : 0;
		report_unwritten(t);
		if (!t->run->quiet)
			cmd_run_report(stderr, t->s, xpc_counts_dropped(counts), t->malformed);
	}
	xt_session_free(t->s);
	gp_gpu_set_free(&t->gpu);
	free(t->env_copy[0]);
	free(t->env_copy[1]);
	free(t);
	return rc;
}

const struct xpb_sink xpb_sink_turns = {
	.name = "turns",
	.begin = turns_begin,
	.on_event = turns_event,
	.end = turns_end,
};
