// SPDX-License-Identifier: MIT
/*
 * links.c - detaching many BPF links at once (links.h). Each uprobe's
 * removal waits for the kernel to synchronise (strace: 100-400 ms per link
 * on this VM kind), one link after the other when destroyed in a loop;
 * started from threads the waits partly overlap (bench/gpu_uprobe's second
 * table shows what detaching still costs at the end of a run).
 *
 * xpc_release_links() runs them in a child process. libbpf attaches a
 * uprobe as a perf event with a BPF link on it (bpftool: "perf_event"
 * links); the kernel removes the uprobe when the last reference to the
 * event goes, in the task that drops it, and gives the removal up when that
 * task has a fatal signal pending (its page walks return -EINTR): the uprobe
 * is leaked for good (dmesg: "failed to unregister, leaking uprobe"), its
 * int3 left in every process that mapped the library, each call trapping
 * for as long as the process lives. A SIGKILL of xperf-bpf while it
 * detached did that (tests/fault/detach_test: 10 uprobes in 2 kills); the
 * closes at its exit do not (the dying threads' SIGKILL is dequeued by
 * then). A child process, in a session of its own, holds the last
 * reference to each link once the parent has closed its own; the SIGKILL
 * of xperf-bpf (or of its process group) never reaches it. The TLS and
 * CUDA probes go this way at the end of a run; those of a traced process
 * that exited are detached in-process while the run goes on (no fork then;
 * their process is gone, no int3 of theirs can be left to trap).
 */
#define _GNU_SOURCE /* pipe2, pthread_tryjoin_np */
#include "userspace/links.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "lib/grow.h"

#define MAX_THREADS 64

static void *destroy_one(void *link)
{
	bpf_link__destroy(link);
	return NULL;
}

void xpc_destroy_links(struct bpf_link **links, size_t n)
{
	pthread_t threads[MAX_THREADS];
	size_t started = 0;

	while (n) {
		struct bpf_link *l = links[--n];

		if (started < MAX_THREADS &&
		    !pthread_create(&threads[started], NULL, destroy_one, l))
			started++;
		else
			bpf_link__destroy(l);
	}
	while (started)
		pthread_join(threads[--started], NULL);
}

void xpc_release_links(struct bpf_link **links, size_t n)
{
	int go[2];
	pid_t child;
	char c;

	if (!n)
		return;
	if (pipe2(go, O_CLOEXEC)) {
		xpc_destroy_links(links, n);
		return;
	}
	child = fork();
	if (child == 0) { /* out of the process group: a kill of the group spares it too */
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		setsid();
		close(go[1]);
		/* no pipe of the caller's (a test's $(...)) held open while it works */
		for (int fd = 0; fd < 3 && null >= 0; fd++)
			dup2(null, fd);
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		xpc_destroy_links(links, n); /* the last references: the removals happen here */
		_exit(0);
	}
	close(go[0]);
	if (child < 0) {
		close(go[1]);
		xpc_destroy_links(links, n);
		return;
	}
	for (size_t i = 0; i < n; i++) /* not the last references: no removal waits here */
		bpf_link__destroy(links[i]);
	close(go[1]);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
}

struct bg_job {
	struct bpf_link **links;
	size_t n;
};

static void *destroy_job(void *arg)
{
	struct bg_job *j = arg;

	xpc_destroy_links(j->links, j->n);
	free(j->links);
	free(j);
	return NULL;
}

void xpc_detach_bg(struct xpc_detacher *d, struct bpf_link **links, size_t n)
{
	struct bg_job *j = malloc(sizeof(*j));

	for (size_t i = d->n; i > 0; i--)
		if (!pthread_tryjoin_np(d->threads[i - 1], NULL))
			d->threads[i - 1] = d->threads[--d->n];
	if (j && !xp_grow((void **)&d->threads, &d->cap, d->n + 1, sizeof(*d->threads))) {
		*j = (struct bg_job){ links, n };
		if (!pthread_create(&d->threads[d->n], NULL, destroy_job, j)) {
			d->n++;
			return;
		}
	}
	/* No thread: done here. */
	free(j);
	xpc_destroy_links(links, n);
	free(links);
}

void xpc_detacher_wait(struct xpc_detacher *d)
{
	while (d->n)
		pthread_join(d->threads[--d->n], NULL);
	free(d->threads);
	d->threads = NULL;
	d->cap = 0;
}
