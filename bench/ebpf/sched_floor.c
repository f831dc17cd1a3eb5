// SPDX-License-Identifier: MIT
/*
 * sched_floor.c - load and attach one set of sched_floor.bpf.c's programs
 * on sched_switch, sched_wakeup and sched_wakeup_new ("empty" or "filter"),
 * say "attached" on stdout, and hold them until SIGINT or SIGTERM. For
 * sched_floor.sh (root).
 *
 *   sched_floor_attach empty|filter
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bench/ebpf/sched_floor.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sched_floor_bpf *s;
	struct bpf_program *p;

	if (argc != 2 || (strcmp(argv[1], "empty") && strcmp(argv[1], "filter"))) {
		fprintf(stderr, "usage: sched_floor_attach empty|filter\n");
		return 64;
	}
	s = sched_floor_bpf__open();
	if (!s)
		return 1;
	bpf_object__for_each_program(p, s->obj)	/* the set named, by its prefix */
		bpf_program__set_autoload(p, !strncmp(bpf_program__name(p), argv[1],
						      strlen(argv[1])));
	if (sched_floor_bpf__load(s) || sched_floor_bpf__attach(s)) {
		fprintf(stderr, "sched_floor: cannot load or attach: %s\n", strerror(errno));
		sched_floor_bpf__destroy(s);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("attached\n");
	fflush(stdout);
	while (!stop)
		pause();
	sched_floor_bpf__destroy(s);
	return 0;
}
