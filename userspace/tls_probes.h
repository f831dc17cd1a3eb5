/* SPDX-License-Identifier: MIT */
/*
 * tls_probes.h - load and attach the TLS plaintext tier (tls.bpf.c) and the
 * socket/ciphertext tier (sock.bpf.c) as two skeletons that share the
 * loader's `traced`, `events` and `drops` maps and each other's
 * `tls_calls` map. Uprobes are attached once per library inode with
 * pid -1 and filtered in the kernel by the traced set.
 */
#ifndef XPERF_USERSPACE_TLS_PROBES_H
#define XPERF_USERSPACE_TLS_PROBES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#include "bpf/xperf.h"
#include "bpf/sock.h"
#include "userspace/locate/locate.h"

struct bpf_object;

struct xpc_tls_opts {
	uint32_t cap_bytes;	/* plaintext bytes kept per SSL call; 0: default */
	bool no_plaintext;	/* ciphertext tier only (--no-plaintext) */
	bool verbose;		/* print each attached library on stderr */
	/*
	 * Plaintext through the per-CPU scratch even where the kernel has
	 * bpf_probe_read_user_dynptr: older kernels' path, for their tests.
	 */
	bool copy_scratch;
	/*
	 * Announce executable file mappings (XP_EV_MAP_EXEC) even with
	 * no_plaintext: another module needs them (the cuda module's late
	 * libraries).
	 */
	bool watch_maps;
	/*
	 * Uprobes per traced process instead of per library (pid -1): other
	 * processes using the same libssl no longer trap (bench/tls), but each
	 * traced process gets its own links, detached at its exit; a child that
	 * forks without exec runs on its parent's breakpoints (bpf/TLS.md).
	 */
	bool per_pid;
	int sock_hooks;		/* enum xpc_sock_hooks (sock_hooks.h); 0: the cheapest here */
	bool discover_net;	/* examine untraced processes' first sends (discover_net.bpf.h) */
	/*
	 * Make obj share the loader's traced/traced_flags/events/drops maps
	 * before load (capture.c: xpc_reuse_maps); required.
	 */
	int (*reuse_maps)(void *ctx, struct bpf_object *obj);
	void *ctx;
};

struct xpc_tls_probes;

/*
 * Open, configure, load and attach the socket programs (and, unless
 * no_plaintext, load the TLS programs: their uprobes attach per library
 * with the calls below). Returns 0 or -errno; on error *out is NULL and
 * a one-line reason was printed on stderr.
 */
int xpc_tls_probes_open(struct xpc_tls_probes **out, const struct xpc_tls_opts *o);

/*
 * Find the TLS libraries process pid uses (tls_libs.h) and attach to each
 * new one. Call at attach time and again when a traced process execs.
 * Returns the number of libraries attached now, or -errno (-ENOENT: no
 * such process). A no-op with no_plaintext.
 */
int xpc_tls_probes_attach_pid(struct xpc_tls_probes *p, pid_t pid);

/*
 * Ahead of any process (per-library mode only): attach to the libssl.so* of
 * the standard library directories of pid's root, so a process traced later
 * that uses one is covered from its first call, not from when its discovery
 * has paid for the first uprobe on the file (bpf/TLS.md). Returns the number
 * attached, 0 in per_pid mode or with no_plaintext, or -errno.
 */
int xpc_tls_probes_attach_root(struct xpc_tls_probes *p, pid_t pid);

/*
 * The same for one executable or library file, for process pid (used in
 * per_pid mode; pass the process about to exec it). 1 if attached, 0 if
 * not TLS or already done.
 */
int xpc_tls_probes_attach_file(struct xpc_tls_probes *p, const char *path, pid_t pid);

/*
 * What libraries mapped after exec cost and caught (XP_EV_MAP_EXEC). The
 * probes go in a few ms after the mapping (attach_ns_max); a library used
 * within that window loses its first calls, and io_unprobed bounds them:
 * the process's socket reads/writes inside the window (TLS or not).
 */
struct xpc_tls_late {
	uint64_t maps;		/* XP_EV_MAP_EXEC records handled */
	uint64_t scans;		/* ... naming a file not examined yet: maps rescanned */
	uint64_t libs;		/* TLS libraries those rescans attached to */
	uint64_t attach_ns_max;	/* mapping -> probes in place, worst case */
	uint64_t io_unprobed;	/* socket I/O of those processes inside that delay, or
				   after the mapping of one gone before it was probed */
};

struct xk_map_exec;

/*
 * Process m->hdr.tgid mapped a file executable: rescan it unless that file
 * was examined already. Returns the libraries attached, or -errno (-ENOENT:
 * the process is gone).
 */
int xpc_tls_probes_on_map(struct xpc_tls_probes *p, const struct xk_map_exec *m);

/* A socket read/write of tgid at ts_ns (XP_EV_SOCK_DATA), for io_unprobed. */
void xpc_tls_probes_on_io(struct xpc_tls_probes *p, uint32_t tgid, uint64_t ts_ns);

/*
 * A traced process forked child (XP_EV_FORK, not a thread): in per_pid
 * mode, attach the child's own uprobes. Its inherited breakpoints do not
 * last: the kernel removes them from every mm no probe's filter names
 * whenever a link on the same function is detached (another process's
 * exit), so a child forked without exec needs links of its own. Returns
 * what xpc_tls_probes_attach_pid() does; 0 in per-library mode.
 */
int xpc_tls_probes_on_fork(struct xpc_tls_probes *p, pid_t child);

/*
 * Process pid exited (XP_EV_EXIT): in per_pid mode, detach its uprobes (on
 * threads of their own: each removal waits for the kernel, links.h) and
 * forget its libraries, so a long run does not keep every child's links
 * to the end and a reused pid is examined afresh. Returns the links being
 * detached, 0 (not per_pid, none) or -ENOMEM.
 */
int xpc_tls_probes_on_exit(struct xpc_tls_probes *p, pid_t pid);

/* How the probes run, and the late libraries' counts so far. */
struct xpc_tls_stats {
	int sock_hooks;			/* the hooks the socket tier runs on (enum xpc_sock_hooks) */
	char sock_hooks_why[384];	/* the one-line reason they were chosen (sock_hooks.h) */
	/* How the TLS programs copy the plaintext into the ring, with the reason
	 * (bpf/tls.bpf.c: copy_direct); NULL when the TLS programs are not loaded. */
	const char *copy_why;
	struct xpc_tls_late late;
};
const struct xpc_tls_stats *xpc_tls_probes_stats(const struct xpc_tls_probes *p);

/*
 * Network discovery (discover_net): replace the host names (SNI) or the
 * paths (kind: enum xk_discover_kind) the kernel makes traced; each at most
 * XP_DISCOVER_NAME - 1 bytes. 0 or -errno.
 */
int xpc_tls_probes_discover(struct xpc_tls_probes *p, int kind, const char *const *names,
			    unsigned int n);

/* The kernel's discovery counters (enum xk_discover_stat), summed over CPUs. */
int xpc_tls_probes_discover_stats(struct xpc_tls_probes *p, uint64_t stats[XP_DSTAT_MAX]);

/*
 * A file whose TLS functions were found by analysis (or whose known stack
 * could not be resolved: r.status LOC_FAILED, nothing attached). Its id
 * (1-based) is the uprobes' cookie, in xk_tls_data.located.
 */
struct xpc_tls_located {
	char path[256];
	struct loc_result r;
};

/* Located file `id` (xk_tls_data.located; ids run from 1 up), NULL if none. */
const struct xpc_tls_located *xpc_tls_probes_located(const struct xpc_tls_probes *p, unsigned int id);

/*
 * Since when (CLOCK_MONOTONIC ns) located file id's probes cover process
 * tgid (its own, per_pid mode, or the file's, pid -1); UINT64_MAX if none.
 */
uint64_t xpc_tls_probes_located_since(const struct xpc_tls_probes *p, unsigned int id,
				     uint32_t tgid);

/* Detach everything and free p (NULL is fine). */
void xpc_tls_probes_close(struct xpc_tls_probes *p);

#endif /* XPERF_USERSPACE_TLS_PROBES_H */
