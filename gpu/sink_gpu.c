// SPDX-License-Identifier: MIT
/*
 * sink_gpu.c - the cuda module's records (XP_EV_CUDA_CALL) as .xpgpu files
 * inside `xperf-bpf`: one gpu-<tgid>.uprobe.xpgpu per traced process that
 * made CUDA calls, in the run's GPU directory (xpb_gpu_dir: <trace dir>/gpu
 * unless XPERF_GPU_DIR is set), the directory the turn sink merges from at
 * the end of the run (it ends after this one: userspace/sinks.c), next to
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
#include "userspace/sink.h"

struct proc_file {
	__u32 tgid;
	struct xp_gpu_writer *w;
};

struct gpu_sink {
	const struct xpb_run *run;
	char dir[PATH_MAX];
	struct proc_file *files;
	size_t n, cap;
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
static struct xp_gpu_writer *file_of(struct gpu_sink *g, __u32 tgid)
{
	struct xp_gpu_writer *w;
	int err;

	for (size_t i = 0; i < g->n; i++)
		if (g->files[i].tgid == tgid)
			return g->files[i].w;
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 8;
		struct proc_file *grown = realloc(g->files, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		g->files = grown;
		g->cap = cap;
	}
	w = malloc(sizeof(*w));
	err = w ? xp_gpu_writer_open(w, g->dir, (int)tgid, XP_GPU_SRC_UPROBE) : -ENOMEM;
	if (err) {
		write_failed(g, err);
		free(w);
		return NULL;
	}
	g->files[g->n++] = (struct proc_file){ tgid, w };
	return w;
}

/* Close file i (flushing it) and drop it from the list. */
static void close_file(struct gpu_sink *g, size_t i)
{
	int err = xp_gpu_writer_close(g->files[i].w);

	if (err)
		write_failed(g, err);
	free(g->files[i].w);
	g->files[i] = g->files[--g->n];
}

static int gpu_event(void *state, const struct xp_hdr *rec)
{
	struct gpu_sink *g = state;
	struct xp_gpu_writer *w;
	struct xp_gpu_rec r;
	int err;

	if (rec->type == XP_EV_EXIT) {
		for (size_t i = 0; i < g->n; i++)
			if (g->files[i].tgid == rec->tgid) {
				close_file(g, i);
				break;
			}
		return 0;
	}
	if (rec->type != XP_EV_CUDA_CALL)
		return 0;
	if (xp_cuda_call_to_rec(rec, rec->size, &r) || !(w = file_of(g, rec->tgid))) {
		g->lost++;
		return 0;
	}
	err = xp_gpu_writer_add(w, &r);
	if (err) {
		write_failed(g, err);
		g->lost++;
	}
	return 0;
}

static int gpu_end(void *state, struct xpc *c, const struct xpc_counts *counts)
{
	struct gpu_sink *g = state;
	struct xp_gpu_writer *w;
	int err;

	(void)c;
	if (counts)
		g->lost += counts->drops[XP_EV_CUDA_CALL];
	if (counts && g->lost) {
		w = file_of(g, (__u32)g->run->root);
		err = w ? xp_gpu_writer_dropped(w, g->lost) : 0;
		if (err)
			write_failed(g, err);
	}
	while (g->n)
		close_file(g, g->n - 1);
	err = counts && g->err ? -EIO : 0;
	free(g->files);
	free(g);
	return err;
}

const struct xpb_sink xpb_sink_gpu = {
	.name = "gpu",
	.begin = gpu_begin,
	.on_event = gpu_event,
	.end = gpu_end,
};
