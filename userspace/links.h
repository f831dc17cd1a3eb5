/* SPDX-License-Identifier: MIT */
/*
 * links.h - detaching many BPF links at once. Each uprobe link's removal
 * waits for the kernel to synchronise (100-400 ms per link on this VM
 * kind): destroyed one after the other, a module's probes add seconds to
 * every exit.
 */
#ifndef XPERF_USERSPACE_LINKS_H
#define XPERF_USERSPACE_LINKS_H

#include <pthread.h>
#include <stddef.h>

struct bpf_link;

/* Destroy links[0..n) concurrently; returns when all are gone. */
void xpc_destroy_links(struct bpf_link **links, size_t n);

/*
 * The same from a child process, which a SIGKILL of this one does not
 * interrupt (links.c: the kernel leaks a uprobe whose removal is): for the
 * TLS libraries' probes, which every process mapping the library traps on.
 */
void xpc_release_links(struct bpf_link **links, size_t n);

/* Threads detaching batches of links in the background (xpc_detach_bg). */
struct xpc_detacher {
	pthread_t *threads;
	size_t n, cap;
};

/*
 * Destroy links[0..n) and free(links) on a thread of d, so the caller (the
 * ring consumer) does not wait (done here if none can be started); join d
 * (xpc_detacher_wait) before the programs' object is destroyed. Threads
 * found finished are joined first, so d holds only those still running.
 */
void xpc_detach_bg(struct xpc_detacher *d, struct bpf_link **links, size_t n);

/* Wait for every thread of d and free what it holds. */
void xpc_detacher_wait(struct xpc_detacher *d);

#endif /* XPERF_USERSPACE_LINKS_H */
