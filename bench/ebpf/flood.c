// SPDX-License-Identifier: MIT
/*
 * flood.c - write scheduler records into a running xperf-bpf's ring at a
 * given rate, for the consumer benchmark (run.sh, table 3b):
 *
 *   flood_producer XPERF_PID RATE SECONDS    (root; RATE records/s, 0: as fast as it can)
 *
 * Finds the `events` ring and `drops` array that process holds (its
 * /proc/PID/fdinfo), loads flood.bpf.c onto them and runs it in batches,
 * paced. Prints {"produced": N, "lost": N, "seconds": S}: lost records
 * are the ones the full ring refused, counted in xperf-bpf's drops too.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench/ebpf/flood.skel.h"

#define BATCH 4096

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* fd of the map named `name` that process pid holds, or -1. */
static int held_map(int pid, const char *name)
{
	char path[64], line[128];
	struct dirent *d;
	DIR *dir;
	int found = -1;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", pid);
	dir = opendir(path);
	while (dir && found < 0 && (d = readdir(dir))) {
		char file[320];
		FILE *f;

		snprintf(file, sizeof(file), "%s/%s", path, d->d_name);
		f = fopen(file, "re");
		while (f && fgets(line, sizeof(line), f)) {
			struct bpf_map_info info = {};
			__u32 len = sizeof(info);
			unsigned int id;
			int fd;

			if (sscanf(line, "map_id: %u", &id) != 1)
				continue;
			fd = bpf_map_get_fd_by_id(id);
			if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) &&
			    !strcmp(info.name, name)) {
				found = fd;
				break;
			}
			if (fd >= 0)
				close(fd);
		}
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return found;
}

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_test_run_opts, run);
	struct flood_bpf *s;
	int pid, events, drops, prog;
	double rate, secs, t0, t;
	unsigned long long runs = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: flood_producer XPERF_PID RATE SECONDS\n");
		return 64;
	}
	pid = atoi(argv[1]);
	rate = atof(argv[2]);
	secs = atof(argv[3]);
	events = held_map(pid, "events");
	drops = held_map(pid, "drops");
	s = flood_bpf__open();
	if (events < 0 || drops < 0 || !s) {
		fprintf(stderr, "flood: no xperf-bpf ring in process %d\n", pid);
		return 1;
	}
	s->rodata->batch = BATCH;
	if (bpf_map__reuse_fd(s->maps.events, events) || bpf_map__reuse_fd(s->maps.drops, drops) ||
	    flood_bpf__load(s)) {
		fprintf(stderr, "flood: cannot load: %s\n", strerror(errno));
		return 1;
	}
	prog = bpf_program__fd(s->progs.flood);
	t0 = now_s();
	while ((t = now_s() - t0) < secs) {
		double ahead = rate > 0 ? runs * BATCH / rate - t : 0;

		if (ahead > 0.0002)
			usleep(ahead * 1e6);
		else if (ahead <= 0 && bpf_prog_test_run_opts(prog, &run) == 0)
			runs++;
	}
	printf("{\"produced\": %llu, \"lost\": %llu, \"seconds\": %.3f}\n",
	       (unsigned long long)s->bss->produced, (unsigned long long)s->bss->lost, now_s() - t0);
	flood_bpf__destroy(s);
	return 0;
}
