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
#include "assemble/report.h"
#include "assemble/session.h"
#include "gpu/turn_gpu.h"
#include "userspace/sink.h"

#define XT_MAX_RULES 32

struct turns {
	struct xt_config cfg;
	struct xt_session *s;
	const struct xpb_run *run;
	char *env_copy[2];
	const char *paths[XT_MAX_RULES + 1], *hosts[XT_MAX_RULES + 1];
	struct xt_adapt_buf buf;
	uint64_t malformed;
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

static int turns_event(void *state, const struct xp_hdr *rec)
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
	return xt_session_event(t->s, &ev) ? -EIO : 0;
}

/* The agent ended: gone, or a zombie waiting to be reaped. */
static int root_exited(pid_t root)
{
	char path[64], buf[512];
	FILE *f;
	int exited = 1;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)root);
	f = fopen(path, "r");
	if (f) {
		const char *p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;

		exited = p && (p[2] == 'Z' || p[2] == 'X');
		fclose(f);
	}
	return exited;
}

static void print_gpu_error(const struct xp_verror *e, void *ctx)
{
	char line[1024];

	(void)ctx;
	fprintf(stderr, "xperf-bpf: gpu: %s\n", xp_verror_format(e, line, sizeof(line)));
}

/*
 * GPU records the traced command's CUPTI collector wrote (gpu/README.md)
 * go into the turns whose intelligent spans they overlap. Done once at the
 * end: the collector hands records over when its buffers complete, which
 * can be after the turn they belong to was written.
 */
static void merge_gpu(struct turns *t)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], err[PATH_MAX + 64];
	struct xp_gpu_set set = { 0 };

	if (xp_gpu_load_dir(xpb_gpu_dir(t->run->out_dir, dir, sizeof(dir)), &set, err,
			    sizeof(err)))
		fprintf(stderr, "xperf-bpf: gpu: %s\n", err);
	for (int i = 1; set.n && i <= xt_session_turns(t->s); i++) {
		snprintf(path, sizeof(path), "%s/turn_%03d.json", xt_session_dir(t->s), i);
		if (xp_gpu_merge_file(path, &set, print_gpu_error, NULL, err, sizeof(err)) < 0)
			fprintf(stderr, "xperf-bpf: gpu: %s\n", err);
	}
	xp_gpu_set_free(&set);
}

static int turns_end(void *state, struct xpc *c, const struct xpc_counts *counts)
{
	struct turns *t = state;
	struct timespec ts;
	int rc = 0;

	if (c && counts && (t->s || session_start(t) == 0)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		xt_session_set_dropped(t->s, xpc_counts_dropped(counts));
		rc = xt_session_finish(t->s, (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec,
				       root_exited(t->run->root)) ? -EIO : 0;
		merge_gpu(t);
		if (!t->run->quiet)
			xt_report(stderr, t->s, xpc_counts_dropped(counts), t->malformed);
	}
	xt_session_free(t->s);
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
