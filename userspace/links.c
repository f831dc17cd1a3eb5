// SPDX-License-Identifier: MIT
/*
 * links.c - detaching many BPF links at once (links.h). Each uprobe's
 * removal waits for the kernel to synchronise (strace: 100-400 ms per link
 * on this VM kind), one link after the other when destroyed in a loop;
 * started from threads the waits partly overlap (bench/gpu_uprobe's second
 * table shows what detaching still costs at the end of a run).
 */
#define _GNU_SOURCE /* pthread_tryjoin_np */
#include "userspace/links.h"

#include <errno.h>
#include <stdlib.h>

#include <bpf/libbpf.h>

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

int xpc_destroy_links_bg(struct bpf_link **links, size_t n, pthread_t *t)
{
	struct bg_job *j = malloc(sizeof(*j));
	int err = j ? 0 : ENOMEM;

	if (j) {
		*j = (struct bg_job){ links, n };
		err = pthread_create(t, NULL, destroy_job, j);
	}
	if (!err)
		return 0;
	free(j);
	xpc_destroy_links(links, n);
	free(links);
	return -err;
}

void xpc_detach_bg(struct xpc_detacher *d, struct bpf_link **links, size_t n)
{
	pthread_t *grown;

	for (size_t i = d->n; i > 0; i--)
		if (!pthread_tryjoin_np(d->threads[i - 1], NULL))
			d->threads[i - 1] = d->threads[--d->n];
	grown = realloc(d->threads, (d->n + 1) * sizeof(*grown));
	if (!grown) {
		xpc_destroy_links(links, n);
		free(links);
		return;
	}
	d->threads = grown;
	d->n += !xpc_destroy_links_bg(links, n, &grown[d->n]);
}

void xpc_detacher_wait(struct xpc_detacher *d)
{
	while (d->n)
		pthread_join(d->threads[--d->n], NULL);
	free(d->threads);
	d->threads = NULL;
}
