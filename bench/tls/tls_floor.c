// SPDX-License-Identifier: MIT
/*
 * tls_floor.c - attach one pair of tls_floor.bpf.c's programs as uprobe +
 * uretprobe on SSL_write of LIB (every process that maps it, as xperf's
 * per-library probes): "empty", or capture_enter with the return of
 * "capture", "scratch" or "dynptr"; say "attached" on stdout, and hold them
 * until SIGINT or SIGTERM. The capture pairs' ring is drained every 100 ms
 * as xperf's consumer does (its producers do not wake it); the records read
 * are printed at the end. For floor.sh (root).
 *
 *   tls_floor_attach empty|capture|scratch|dynptr LIB
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bench/tls/tls_floor.skel.h"

static volatile sig_atomic_t stop;
static long long records;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int on_record(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	records++;
	return 0;
}

static int attach(struct bpf_program *p, const char *lib, bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = "SSL_write", .retprobe = ret);

	return bpf_program__attach_uprobe_opts(p, -1, lib, 0, &o) ? 0 : -errno;
}

int main(int argc, char **argv)
{
	struct ring_buffer *rb = NULL;
	struct bpf_program *p, *enter, *ret;
	struct tls_floor_bpf *s;
	char name[32];
	bool capture;
	int err;

	s = argc == 3 ? tls_floor_bpf__open() : NULL;
	snprintf(name, sizeof(name), "%s_exit", argc == 3 ? argv[1] : "");
	ret = s ? bpf_object__find_program_by_name(s->obj, name) : NULL;	/* the mode's return */
	if (!ret) {
		fprintf(stderr, "usage: tls_floor_attach empty|capture|scratch|dynptr LIB\n");
		tls_floor_bpf__destroy(s);
		return 64;
	}
	capture = strcmp(argv[1], "empty");
	enter = capture ? s->progs.capture_enter : s->progs.empty_enter;
	bpf_object__for_each_program(p, s->obj)
		bpf_program__set_autoload(p, p == enter || p == ret);
	err = tls_floor_bpf__load(s);
	err = err ?: attach(enter, argv[2], false);
	err = err ?: attach(ret, argv[2], true);
	if (!err && capture) {
		rb = ring_buffer__new(bpf_map__fd(s->maps.ring), on_record, NULL, NULL);
		err = rb ? 0 : -errno;
	}
	if (err) {
		fprintf(stderr, "tls_floor: cannot load or attach: %s\n", strerror(-err));
		tls_floor_bpf__destroy(s);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("attached\n");
	fflush(stdout);
	while (!stop) {
		if (rb)
			ring_buffer__consume(rb);
		usleep(100 * 1000);
	}
	if (rb) {
		ring_buffer__consume(rb);
		printf("records %lld\n", records);
	}
	ring_buffer__free(rb);
	tls_floor_bpf__destroy(s);
	return 0;
}
