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
 * Detaching waits for the kernel (links.h): at an exit it runs on a thread
 * of its own, so the ring consumer goes on.
 */
#define _GNU_SOURCE /* pthread_tryjoin_np */
#include "userspace/cuda_probes.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "gpu/cuda_uprobes.h"
#include "bpf/tls.h"
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

struct cuda_proc {
	pid_t pid;
	struct cuda_lib *libs;
	size_t nlibs;
};

struct xp_cuda_probes {
	struct bpf_object *obj;
	struct tls_libset *plain;	/* mapped files that are not CUDA libraries */
	struct cuda_proc *procs;	/* processes with probes */
	size_t nprocs;
	pid_t cur;			/* the process being scanned (attach_lib) */
	pthread_t *reapers;		/* threads detaching exited processes' probes */
	size_t nreapers;
	struct xp_cuda_stats stats;
	bool verbose;
};

int xp_cuda_probes_new(struct bpf_object *obj, bool verbose, struct xp_cuda_probes **out)
{
	struct xp_cuda_probes *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p || !(p->plain = tls_libset_new())) {
		free(p);
		return -ENOMEM;
	}
	p->obj = obj;
	p->verbose = verbose;
	*out = p;
	return 0;
}

static struct cuda_proc *proc_find(struct xp_cuda_probes *p, pid_t pid)
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

static struct cuda_proc *proc_add(struct xp_cuda_probes *p, pid_t pid)
{
	struct cuda_proc *grown = realloc(p->procs, (p->nprocs + 1) * sizeof(*grown));

	if (!grown)
		return NULL;
	p->procs = grown;
	grown[p->nprocs] = (struct cuda_proc){ .pid = pid };
	p->stats.processes++;
	return &grown[p->nprocs++];
}

/* cuda_lib_cb: probe the library for p->cur unless it has them already. */
static int attach_lib(void *ctx, const char *path, dev_t dev, ino_t ino)
{
	struct xp_cuda_probes *p = ctx;
	struct cuda_proc *proc = proc_find(p, p->cur);
	struct cuda_lib *lib;
	struct timespec now;

	if (lib_find(proc, dev, ino))
		return 0;
	if (!proc && !(proc = proc_add(p, p->cur)))
		return -ENOMEM;
	lib = realloc(proc->libs, (proc->nlibs + 1) * sizeof(*lib));
	if (!lib)
		return -ENOMEM;
	proc->libs = lib;
	lib += proc->nlibs++;
	lib->dev = dev;
	lib->ino = ino;
	lib->nlinks = xp_cuda_attach_lib(p->obj, path, p->cur, lib->links);
	clock_gettime(CLOCK_MONOTONIC, &now); /* bpf_ktime_get_ns's clock */
	lib->attached_ns = (uint64_t)now.tv_sec * 1000000000 + (uint64_t)now.tv_nsec;
	p->stats.libs++;
	p->stats.probes += lib->nlinks;
	if (p->verbose)
		fprintf(stderr, "xperf-bpf: cuda: %d probes on %s\n", lib->nlinks, path);
	return 1;
}

int xp_cuda_probes_scan(struct xp_cuda_probes *p, pid_t pid)
{
	p->cur = pid;
	return cuda_libs_scan_pid(p->plain, pid, attach_lib, p);
}

int xp_cuda_probes_on_map(struct xp_cuda_probes *p, const struct xp_map_exec *m)
{
	dev_t dev = makedev(m->dev_major, m->dev_minor);
	pid_t pid = (pid_t)m->hdr.tgid;
	struct cuda_lib *lib;
	int n = 0;

	p->stats.map_records++;
	if (m->ino && tls_libset_has(p->plain, dev, m->ino))
		return 0;
	lib = lib_find(proc_find(p, pid), dev, m->ino);
	if (!lib) {
		p->stats.rescans++;
		n = xp_cuda_probes_scan(p, pid);
		lib = lib_find(proc_find(p, pid), dev, m->ino);
	}
	/* Probed before this record arrived (the exec scan) or by this rescan. */
	if (lib && lib->attached_ns > m->hdr.ts_ns &&
	    lib->attached_ns - m->hdr.ts_ns > p->stats.attach_ns_max)
		p->stats.attach_ns_max = lib->attached_ns - m->hdr.ts_ns;
	return n;
}

/*
 * The links of procs[0..nprocs) in one array (*n of them) for
 * xpc_destroy_links; NULL when there are none, or when out of memory (then
 * they were destroyed here, library by library).
 */
static struct bpf_link **take_links(struct cuda_proc *procs, size_t nprocs, size_t *n)
{
	struct bpf_link **all;
	size_t k = 0;

	*n = 0;
	for (size_t i = 0; i < nprocs; i++)
		for (size_t j = 0; j < procs[i].nlibs; j++)
			*n += procs[i].libs[j].nlinks;
	all = *n ? malloc(*n * sizeof(*all)) : NULL;
	for (size_t i = 0; i < nprocs; i++) {
		for (size_t j = 0; j < procs[i].nlibs; j++) {
			struct cuda_lib *l = &procs[i].libs[j];

			if (all)
				memcpy(all + k, l->links, l->nlinks * sizeof(*all));
			else
				xpc_destroy_links(l->links, l->nlinks);
			k += l->nlinks;
		}
		free(procs[i].libs);
	}
	if (!all)
		*n = 0;
	return all;
}

/* Forget the reapers that are done. */
static void reap_finished(struct xp_cuda_probes *p)
{
	for (size_t i = p->nreapers; i > 0; i--)
		if (!pthread_tryjoin_np(p->reapers[i - 1], NULL))
			p->reapers[i - 1] = p->reapers[--p->nreapers];
}

/* Drop proc's entry; its probes go on a reaper thread. */
static void proc_retire(struct xp_cuda_probes *p, struct cuda_proc *proc)
{
	pthread_t *grown;
	size_t n;
	struct bpf_link **links = take_links(proc, 1, &n);

	*proc = p->procs[--p->nprocs];
	if (!links)
		return;
	reap_finished(p);
	grown = realloc(p->reapers, (p->nreapers + 1) * sizeof(*grown));
	if (!grown) {
		xpc_destroy_links(links, n);
		free(links);
		return;
	}
	p->reapers = grown;
	if (!xpc_destroy_links_bg(links, n, &grown[p->nreapers]))
		p->nreapers++;
}

int xp_cuda_probes_on_fork(struct xp_cuda_probes *p, pid_t parent, pid_t child)
{
	struct cuda_proc *stale = proc_find(p, child);

	/* A new process under a pid whose exit record was lost. */
	if (stale)
		proc_retire(p, stale);
	return proc_find(p, parent) ? xp_cuda_probes_scan(p, child) : 0;
}

void xp_cuda_probes_on_exit(struct xp_cuda_probes *p, pid_t pid)
{
	struct cuda_proc *proc = proc_find(p, pid);

	if (!proc)
		return;
	proc_retire(p, proc);
	p->stats.detached++;
}

void xp_cuda_probes_stats(const struct xp_cuda_probes *p, struct xp_cuda_stats *out)
{
	*out = p->stats;
}

void xp_cuda_probes_free(struct xp_cuda_probes *p)
{
	struct bpf_link **links;
	size_t n;

	if (!p)
		return;
	links = take_links(p->procs, p->nprocs, &n);
	xpc_destroy_links(links, n);
	free(links);
	while (p->nreapers)
		pthread_join(p->reapers[--p->nreapers], NULL);
	free(p->reapers);
	free(p->procs);
	tls_libset_free(p->plain);
	free(p);
}
