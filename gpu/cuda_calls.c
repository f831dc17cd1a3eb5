// SPDX-License-Identifier: MIT
/*
 * cuda_calls.c - a plain C program linked to libcudart that calls the CUDA
 * runtime's launch, copy and synchronisation functions N times each and
 * reports, per function, how many calls it made, the time it spent inside
 * them (CLOCK_MONOTONIC around each call), the median call and the last
 * return code. Without
 * a GPU every call fails fast with an error code, but each call still
 * enters libcudart, which is what the uprobe fallback sees.
 *
 * Last it reports how many of those functions start with a breakpoint
 * (int3, 0xcc) in this process's memory: a uprobe planted here. A process
 * xperf-bpf does not trace must show none while another one is traced.
 *
 * usage: cuda_calls N [pause_ms]   (pause_ms: wait before calling, so a
 * tracer can attach; default 0; SIGUSR1 ends the wait: a test sends it once
 * its tracer says it is in)
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

enum { LAUNCH, MEMCPY, MEMCPY_ASYNC, STREAM_SYNC, DEVICE_SYNC, NFUNC };

static const char *const names[NFUNC] = {
	"cudaLaunchKernel",	 "cudaMemcpy", "cudaMemcpyAsync", "cudaStreamSynchronize",
	"cudaDeviceSynchronize",
};

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void fake_kernel(void)
{
}

static int call(int f, char *host, size_t len)
{
	void *args[1] = {&len};
	dim3 one = {1, 1, 1};

	switch (f) {
	case LAUNCH:
		return cudaLaunchKernel((const void *)fake_kernel, one, one, args, 0, 0);
	case MEMCPY:
		return cudaMemcpy(host, host + len / 2, len / 2, cudaMemcpyHostToHost);
	case MEMCPY_ASYNC:
		return cudaMemcpyAsync(host, host + len / 2, len / 2, cudaMemcpyHostToDevice, 0);
	case STREAM_SYNC:
		return cudaStreamSynchronize(0);
	default:
		return cudaDeviceSynchronize();
	}
}

/* dl_iterate_phdr callback: the loaded libcudart's file name. */
static int find_cudart(struct dl_phdr_info *info, size_t size, void *out)
{
	(void)size;
	if (!strstr(info->dlpi_name, "libcudart"))
		return 0;
	*(const char **)out = info->dlpi_name;
	return 1;
}

/*
 * How many of the functions start with int3 in libcudart itself (looked up
 * in its own scope, not through this program's PLT); -1 if not found.
 */
static int planted_breakpoints(void)
{
	const char *name = NULL;
	void *lib;
	int n = 0;

	dl_iterate_phdr(find_cudart, &name);
	lib = name ? dlopen(name, RTLD_LAZY | RTLD_NOLOAD) : NULL;
	if (!lib)
		return -1;
	for (int f = 0; f < NFUNC; f++) {
		const unsigned char *code = dlsym(lib, names[f]);

		n += code && *code == 0xcc;
	}
	dlclose(lib);
	return n;
}

static void on_go(int sig)
{
	(void)sig;
}

static int by_value(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return (x > y) - (x < y);
}

/* The median of n call durations (sorts them). */
static unsigned long long median(unsigned long long *ns, int n)
{
	qsort(ns, n, sizeof(*ns), by_value);
	return ns[n / 2];
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	int pause_ms = argc > 2 ? atoi(argv[2]) : 0;
	unsigned long long total[NFUNC] = {0}, *ns[NFUNC];
	int rc[NFUNC] = {0};
	static char host[4096];
	struct timespec pause = {pause_ms / 1000, (long)(pause_ms % 1000) * 1000000L};
	struct sigaction go = {.sa_handler = on_go};

	if (n <= 0) {
		fprintf(stderr, "usage: cuda_calls N [pause_ms]\n");
		return 64;
	}
	for (int f = 0; f < NFUNC; f++) {
		ns[f] = calloc(n, sizeof(**ns));
		if (!ns[f]) {
			fprintf(stderr, "cuda_calls: out of memory\n");
			return 1;
		}
	}
	sigaction(SIGUSR1, &go, NULL); /* no SA_RESTART: the signal ends the pause */
	nanosleep(&pause, NULL);
	for (int i = 0; i < n; i++) {
		for (int f = 0; f < NFUNC; f++) {
			unsigned long long t0 = now_ns();

			rc[f] = call(f, host, sizeof(host));
			ns[f][i] = now_ns() - t0;
			total[f] += ns[f][i];
		}
	}
	for (int f = 0; f < NFUNC; f++) {
		printf("%s calls=%d total_ns=%llu median_ns=%llu rc=%d\n", names[f], n, total[f],
		       median(ns[f], n), rc[f]);
		free(ns[f]);
	}
	printf("breakpoints=%d\n", planted_breakpoints());
	return 0;
}
