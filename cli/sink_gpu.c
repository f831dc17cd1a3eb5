// SPDX-License-Identifier: MIT
/*
 * sink_gpu.c - the cuda module's records (XP_EV_CUDA_CALL) as .xpgpu files
 * inside `xperf-bpf`: one gpu-<tgid>.uprobe.xpgpu per traced process that
 * made CUDA calls, in the run's GPU directory (xpb_gpu_dir: <trace dir>/gpu
 * unless XPERF_GPU_DIR is set), the directory the turn sink merges from at
 * the end of the run (it ends after this one: cli/xperf_bpf_sinks.c), next to
 * what an injected CUPTI collector wrote. A process's file is closed when
 * it exits. Records lost in the ring, or that could not be written, go
 * into the root's file as one dropped frame at the end, so the turns'
 * gpu.dropped_records says so. gpu/README.md says why files.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cuda_uprobes.h"
#include "gpu/gpu_records.h"
#include "userspace/run/sink.h"

/* The open file of one process (a list: a few CUDA processes at a time). */
struct proc_file {
	struct proc_file *next;
	__u32 tgid;
	struct gp_gpu_writer w;
};

struct gpu_sink {
	const struct xpb_run *run;
	char dir[PATH_MAX];
	struct proc_file *files;
	uint64_t lost;	/* records not converted or not written */
	int err;	/* first write error (printed once) */
};

static int gpu_begin(const struct xpb_run *run, void **state)
{
	struct gpu_sink *g = calloc(1, sizeof(*g));

	if (!g)
		return -ENOMEM;
	g->run = run;
	xpb_gpu_dir(run->out_dir, g->dir, sizeof(g->dir));
	*state = g;
	return 0;
}

static void write_failed(struct gpu_sink *g, int err)
{
	if (!g->err)
		fprintf(stderr, "xperf-bpf: gpu: %s: %s\n", g->dir, strerror(-err));
	g->err = g->err ?: err;
}

/* The open file of tgid, opened (and added) on first use; NULL on failure. */
static struct gp_gpu_writer *file_of(struct gpu_sink *g, __u32 tgid)
{
	struct proc_file *f;
	int err;

	for (f = g->files; f; f = f->next)
		if (f->tgid == tgid)
			return &f->w;
	f = malloc(sizeof(*f));
	err = f ? gp_gpu_writer_open(&f->w, g->dir, (int)tgid, XP_GPU_SRC_UPROBE) : -ENOMEM;
	if (err) {
		write_failed(g, err);
		free(f);
		return NULL;
	}
	f->tgid = tgid;
	f->next = g->files;
	g->files = f;
	return &f->w;
}

/* Close the file *link points to (flushing it) and unlink it. */
static void close_file(struct gpu_sink *g, struct proc_file **link)
{
	struct proc_file *f = *link;
	int err = gp_gpu_writer_close(&f->w);

	if (err)
		write_failed(g, err);
	*link = f->next;
	free(f);
}

static int gpu_event(void *state, const struct xk_hdr *rec)
{
	struct gpu_sink *g = state;
	struct gp_gpu_writer *w;
	struct gp_gpu_rec r;
	int err;

	if (rec->type == XP_EV_EXIT) {
		for (struct proc_file **link = &g->files; *link; link = &(*link)->next)
			if ((*link)->tgid == rec->tgid) {
				close_file(g, link);
				break;
			}
		return 0;
	}
	if (rec->type != XP_EV_CUDA_CALL)
		return 0;
	if (gp_cuda_call_to_rec(rec, rec->size, &r) || !(w = file_of(g, rec->tgid))) {
		g->lost++;
		return 0;
	}
	err = gp_gpu_writer_add(w, &r);
	if (err) {
		write_failed(g, err);
		g->lost++;
	}
	return 0;
}

static int gpu_end(void *state, struct xpc *c, const struct xpc_counts *counts)
{
	struct gpu_sink *g = state;
	struct gp_gpu_writer *w;
	int err;

	(void)c;
	if (counts)
		g->lost += counts->drops[XP_EV_CUDA_CALL];
	if (counts && g->lost) {
		w = file_of(g, (__u32)g->run->root);
		err = w ? gp_gpu_writer_dropped(w, g->lost) : 0;
		if (err)
			write_failed(g, err);
	}
	while (g->files)
		close_file(g, &g->files);
	err = counts && g->err ? -EIO : 0;
	free(g);
	return err;
}

const struct xpb_sink xpb_sink_gpu = {
	.name = "gpu",
	.begin = gpu_begin,
	.on_event = gpu_event,
	.end = gpu_end,
};
