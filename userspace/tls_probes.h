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

struct bpf_object;

struct xp_tls_opts {
	uint32_t cap_bytes;	/* plaintext bytes kept per SSL call; 0: default */
	bool no_plaintext;	/* ciphertext tier only (--no-plaintext) */
	bool verbose;		/* print each attached library on stderr */
	uint32_t ring_size;	/* own `events` ring bytes (no reuse_maps); 0: as built */
	/*
	 * Make obj share the loader's traced/events/drops maps before load
	 * (capture.c: xpc_reuse_maps); NULL: the objects keep their own
	 * (the tls object's, which the sock object then shares).
	 */
	int (*reuse_maps)(void *ctx, struct bpf_object *obj);
	void *ctx;
};

struct xp_tls_probes;

/*
 * Open, configure, load and attach the socket programs (and, unless
 * no_plaintext, load the TLS programs: their uprobes attach per library
 * with the calls below). Returns 0 or -errno; on error *out is NULL and
 * a one-line reason was printed on stderr.
 */
int xp_tls_probes_open(struct xp_tls_probes **out, const struct xp_tls_opts *o);

/*
 * Find the TLS libraries process pid uses (tls_libs.h) and attach to each
 * new one. Call at attach time and again when a traced process execs.
 * Returns the number of libraries attached now, or -errno (-ENOENT: no
 * such process). A no-op with no_plaintext.
 */
int xp_tls_probes_attach_pid(struct xp_tls_probes *p, pid_t pid);

/* The same for one executable or library file; 1 if attached, 0 if not TLS. */
int xp_tls_probes_attach_file(struct xp_tls_probes *p, const char *path);

/* fd of a map of the loaded objects ("traced", "events", "drops"), or -1. */
int xp_tls_probes_map_fd(const struct xp_tls_probes *p, const char *name);

/* Detach everything and free p (NULL is fine). */
void xp_tls_probes_close(struct xp_tls_probes *p);

#endif /* XPERF_USERSPACE_TLS_PROBES_H */
