// SPDX-License-Identifier: MIT
/*
 * cuda_probes.c - per-process uprobes on CUDA libraries (cuda_probes.h).
 *
 * A uprobe attached with a pid is filtered by the kernel on that task's
 * mm: breakpoints go into that process only, and stay valid across its
 * execs (the filter follows the task). So a process gets its own probes on
 * each CUDA library it maps: found at attach, exec and fork by reading its
 * maps, and later (ld.so right after exec, libcudart dlopening libcuda.so.1
 * at its first call, torch importing a wheel's runtime) through the map
 * watch's XP_EV_MAP_EXEC records. Files known not to be CUDA libraries are
 * shared by all processes, so a record naming one costs a lookup, not a
 * rescan. A child that forks without exec keeps its parent's breakpoints
 * in memory, but the kernel removes them at their first hit there (the
 * filter says no): it gets probes of its own from the fork record.
 * Detaching waits for the kernel (links.h), and while a uprobe is being
 * removed, attaching to the same function waits too (measured: a child
 * forked 2 ms after its sibling's exit got its probes 300 ms late, after
 * it had exited). So an exited process's links are kept (its breakpoints
 * went with its memory; the links hold a file descriptor each) until a
 * quarter of the fd limit is held by them, detached then as one batch on a
 * thread of their own (attaches wait behind it once), the rest at the end.
 */
#include "userspace/cuda_probes.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "gpu/cuda_uprobes.h"
#include "bpf/tls.h"
#include "lib/clock_anchor.h"
#include "lib/grow.h"
#include "userspace/cuda_libs.h"
#include "userspace/links.h"

/* One CUDA library probed for one process. */
struct cuda_lib {
	dev_t dev;
	ino_t ino;
	uint64_t attached_ns;	/* CLOCK_MONOTONIC, like the records' ts_ns */
	int nlinks;
	struct bpf_link *links[2 * XP_CUDA_FN_COUNT];
};

/* Fewest links of exited processes detached in one batch. */
#define DEAD_BATCH_MIN 256

struct cuda_proc {
	pid_t pid;
	struct cuda_lib *libs;
	size_t nlibs, cap;
};

struct xpc_cuda_probes {
	struct bpf_object *obj;
	struct xpc_tls_libset *plain;	/* mapped files that are not CUDA libraries */
	struct cuda_proc *procs;	/* processes with probes */
	size_t nprocs, cap_procs;
	pid_t cur;			/* the process being scanned (attach_lib) */
	struct bpf_link **dead;		/* links of exited processes, not detached yet */
	size_t ndead, cap_dead, dead_batch;	/* ... and how many are detached at once */
	struct xpc_detacher reapers;	/* threads detaching batches of dead links */
	struct xpc_cuda_stats stats;
	bool verbose;
};

int xpc_cuda_probes_new(struct bpf_object *obj, bool verbose, struct xpc_cuda_probes **out)
{
	struct xpc_cuda_probes *p = calloc(1, sizeof(*p));
	struct rlimit fds;

	*out = NULL;
	if (!p || !(p->plain = xpc_tls_libset_new(NULL))) {
		free(p);
		return -ENOMEM;
	}
	p->obj = obj;
	p->verbose = verbose;
	p->dead_batch = DEAD_BATCH_MIN;
	if (!getrlimit(RLIMIT_NOFILE, &fds) && fds.rlim_cur / 4 > DEAD_BATCH_MIN)
		p->dead_batch = fds.rlim_cur / 4;
	*out = p;
	return 0;
}

static struct cuda_proc *proc_find(struct xpc_cuda_probes *p, pid_t pid)
{
	for (size_t i = 0; i < p->nprocs; i++)
		if (p->procs[i].pid == pid)
			return &p->procs[i];
	return NULL;
}

static struct cuda_lib *lib_find(struct cuda_proc *proc, dev_t dev, ino_t ino)
{
	for (size_t i = 0; proc && i < proc->nlibs; i++)
		if (proc->libs[i].dev == dev && proc->libs[i].ino == ino)
			return &proc->libs[i];
	return NULL;
}

static struct cuda_proc *proc_add(struct xpc_cuda_probes *p, pid_t pid)
{
	if (xp_grow((void **)&p->procs, &p->cap_procs, p->nprocs + 1, sizeof(*p->procs)))
		return NULL;
	p->procs[p->nprocs] = (struct cuda_proc){ .pid = pid };
	p->stats.processes++;
	return &p->procs[p->nprocs++];
}

/* xpc_cuda_lib_cb: probe the library for p->cur unless it has them already. */
static int attach_lib(void *ctx, const char *path, dev_t dev, ino_t ino)
{
	struct xpc_cuda_probes *p = ctx;
	struct cuda_proc *proc = proc_find(p, p->cur);
	struct cuda_lib *lib;

	if (lib_find(proc, dev, ino))
		return 0;
	if (!proc && !(proc = proc_add(p, p->cur)))
		return -ENOMEM;
	if (xp_grow((void **)&proc->libs, &proc->cap, proc->nlibs + 1, sizeof(*lib)))
		return -ENOMEM;
	lib = &proc->libs[proc->nlibs++];
	lib->dev = dev;
	lib->ino = ino;
	lib->nlinks = gp_cuda_attach_lib(p->obj, path, p->cur, lib->links);
	lib->attached_ns = xp_now_ns(CLOCK_MONOTONIC);
	p->stats.libs++;
	p->stats.probes += lib->nlinks;
	if (p->verbose)
		fprintf(stderr, "xperf-bpf: cuda: %d probes on %s\n", lib->nlinks, path);
	return 1;
}

int xpc_cuda_probes_scan(struct xpc_cuda_probes *p, pid_t pid)
{
	p->cur = pid;
	return xpc_cuda_libs_scan_pid(p->plain, pid, attach_lib, p);
}

int xpc_cuda_probes_on_map(struct xpc_cuda_probes *p, const struct xk_map_exec *m)
{
	dev_t dev = makedev(m->dev_major, m->dev_minor);
	pid_t pid = (pid_t)m->hdr.tgid;
	struct cuda_lib *lib;
	int n = 0;

	p->stats.map_records++;
	if (m->ino && xpc_tls_libset_has(p->plain, dev, m->ino))
		return 0;
	lib = lib_find(proc_find(p, pid), dev, m->ino);
	if (!lib) {
		p->stats.rescans++;
		n = xpc_cuda_probes_scan(p, pid);
		lib = lib_find(proc_find(p, pid), dev, m->ino);
	}
	/* Probed before this record arrived (the exec scan) or by this rescan. */
	if (lib && lib->attached_ns > m->hdr.ts_ns &&
	    lib->attached_ns - m->hdr.ts_ns > p->stats.attach_ns_max)
		p->stats.attach_ns_max = lib->attached_ns - m->hdr.ts_ns;
	return n;
}

/* Detach the dead links on a thread of their own. */
static void bury(struct xpc_cuda_probes *p)
{
	xpc_detach_bg(&p->reapers, p->dead, p->ndead);
	p->dead = NULL;
	p->ndead = p->cap_dead = 0;
}

/* Drop proc's entry; its links join the dead ones (or go now, out of memory). */
static void proc_retire(struct xpc_cuda_probes *p, struct cuda_proc *proc)
{
	size_t n = 0;
	bool nomem;

	for (size_t i = 0; i < proc->nlibs; i++)
		n += proc->libs[i].nlinks;
	nomem = xp_grow((void **)&p->dead, &p->cap_dead, p->ndead + n + 1, sizeof(*p->dead));
	for (size_t i = 0; i < proc->nlibs; i++) {
		struct cuda_lib *l = &proc->libs[i];

		if (nomem) {
			xpc_destroy_links(l->links, l->nlinks);
			continue;
		}
		memcpy(p->dead + p->ndead, l->links, l->nlinks * sizeof(*p->dead));
		p->ndead += l->nlinks;
	}
	free(proc->libs);
	*proc = p->procs[--p->nprocs];
	if (p->ndead >= p->dead_batch)
		bury(p);
}

int xpc_cuda_probes_on_fork(struct xpc_cuda_probes *p, pid_t parent, pid_t child)
{
	struct cuda_proc *stale = proc_find(p, child);

	/* A new process under a pid whose exit record was lost. */
	if (stale)
		proc_retire(p, stale);
	return proc_find(p, parent) ? xpc_cuda_probes_scan(p, child) : 0;
}

void xpc_cuda_probes_on_exit(struct xpc_cuda_probes *p, pid_t pid)
{
	struct cuda_proc *proc = proc_find(p, pid);

	if (!proc)
		return;
	proc_retire(p, proc);
	p->stats.exited++;
}

const struct xpc_cuda_stats *xpc_cuda_probes_stats(const struct xpc_cuda_probes *p)
{
	return &p->stats;
}

void xpc_cuda_probes_free(struct xpc_cuda_probes *p)
{
	if (!p)
		return;
	while (p->nprocs)
		proc_retire(p, &p->procs[0]);
	xpc_release_links(p->dead, p->ndead); /* live processes' probes: links.c */
	free(p->dead);
	xpc_detacher_wait(&p->reapers);
	free(p->procs);
	xpc_tls_libset_free(p->plain);
	free(p);
}
