/* SPDX-License-Identifier: MIT */
/*
 * cuda_probes.h - the cuda module's uprobes, per traced process: put on
 * the CUDA libraries a process maps (cuda_libs.h) with that process's pid,
 * so the kernel plants breakpoints in its memory only (another process
 * using the same libcudart never traps); its links go after it exits.
 */
#ifndef XPERF_USERSPACE_CUDA_PROBES_H
#define XPERF_USERSPACE_CUDA_PROBES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct bpf_object;
struct xk_map_exec;
struct xpc_cuda_probes;

/* What the probes cost and caught so far (capture.json: modules.cuda). */
struct xpc_cuda_stats {
	uint64_t processes;	/* processes that mapped a CUDA library and got probes */
	uint64_t libs;		/* (process, library) pairs probed */
	uint64_t probes;	/* uprobe links made */
	uint64_t map_records;	/* XP_EV_MAP_EXEC handled */
	uint64_t rescans;	/* ... naming a file not known yet: maps reread */
	uint64_t attach_ns_max;	/* a library mapped -> its probes in place, worst case */
	uint64_t exited;	/* processes with probes that exited (links freed in batches) */
};

/* Probes from obj (cuda.bpf.o, loaded). 0 or -ENOMEM. */
int xpc_cuda_probes_new(struct bpf_object *obj, bool verbose, struct xpc_cuda_probes **out);

/*
 * Probe the CUDA libraries pid maps that it has no probes on yet (at
 * attach, after exec, after a fork). Returns how many, or -errno
 * (-ENOENT: no such process).
 */
int xpc_cuda_probes_scan(struct xpc_cuda_probes *p, pid_t pid);

/*
 * Process m->hdr.tgid mapped a file executable: rescan it unless the file
 * is known not to be a CUDA library or is probed there already. Returns
 * the libraries probed now, or -errno.
 */
int xpc_cuda_probes_on_map(struct xpc_cuda_probes *p, const struct xk_map_exec *m);

/* Process child was forked from parent: it inherits the parent's libraries. */
int xpc_cuda_probes_on_fork(struct xpc_cuda_probes *p, pid_t parent, pid_t child);

/* Process pid exited: its links are detached later, in a batch (slow). */
void xpc_cuda_probes_on_exit(struct xpc_cuda_probes *p, pid_t pid);

const struct xpc_cuda_stats *xpc_cuda_probes_stats(const struct xpc_cuda_probes *p);

/* Detach everything, wait for exits' detaching, free p (NULL is fine). */
void xpc_cuda_probes_free(struct xpc_cuda_probes *p);

#endif /* XPERF_USERSPACE_CUDA_PROBES_H */
