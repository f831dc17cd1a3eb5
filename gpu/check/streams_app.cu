// SPDX-License-Identifier: MIT
/*
 * streams_app.cu - many short kernels from two host threads on two streams,
 * for gpu_check.sh: counts per stream must come out exact, and each stream's
 * idle time must be charged to its own cause.
 *
 * Per round, thread A launches A_KERNELS short kernels and one spin kernel of
 * SPIN_US on stream A, lets thread B go, waits for its stream and sleeps
 * STALL_MS (stream A idles: host wait). Thread B launches B_KERNELS short
 * kernels on stream B and then waits in cudaDeviceSynchronize for A's spin
 * (stream B idles while its host is inside a synchronisation call). B times
 * its own stay in cudaDeviceSynchronize: the ground truth for B's sync share.
 * Prints one line of key=value results.
 *
 * usage: streams_app [rounds]
 */
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <pthread.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gpu/check/cuda_check.h"

enum { A_KERNELS = 30, B_KERNELS = 20, SPIN_US = 2000, STALL_MS = 3 };

__global__ void tiny(float *y)
{
	y[threadIdx.x] += 1.0f;
}

/* Busy for about `ns` nanoseconds of the GPU's global timer. */
__global__ void spin(unsigned long long ns)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while (t - t0 < ns);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int rounds = 100;
static cudaStream_t sa, sb;
static float *ya, *yb;
static long long b_sync_ns;
static int go_round = -1; /* the round B may start, set by A */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void *thread_b(void *)
{
	for (int r = 0; r < rounds; r++) {
		pthread_mutex_lock(&mu);
		while (go_round < r)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		for (int k = 0; k < B_KERNELS; k++)
			tiny<<<1, 32, 0, sb>>>(yb);
		long long t0 = now_ns();
		CHECK(cudaDeviceSynchronize());
		b_sync_ns += now_ns() - t0;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t b;
	unsigned long long ida = 0, idb = 0;

	if (argc > 1)
		rounds = atoi(argv[1]);
	CHECK(cudaSetDevice(0));
	CHECK(cudaStreamCreateWithFlags(&sa, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&sb, cudaStreamNonBlocking));
	CHECK(cudaMalloc(&ya, 32 * sizeof(float)));
	CHECK(cudaMalloc(&yb, 32 * sizeof(float)));
	CHECK(cudaStreamGetId(sa, &ida));
	CHECK(cudaStreamGetId(sb, &idb));
	/* under xperf-bpf: hold the first probed call until the test sees the probes in */
	for (const char *go = getenv("CHECK_APP_GO_FILE"); go && access(go, F_OK);)
		usleep(10000);
	long long t0 = now_ns();
	pthread_create(&b, NULL, thread_b, NULL);
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < A_KERNELS; k++)
			tiny<<<1, 32, 0, sa>>>(ya);
		spin<<<1, 1, 0, sa>>>(SPIN_US * 1000ULL);
		pthread_mutex_lock(&mu);
		go_round = r;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
		CHECK(cudaStreamSynchronize(sa));
		usleep(STALL_MS * 1000);
	}
	pthread_join(b, NULL);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	long long t1 = now_ns();

	printf("stream_a=%llu stream_b=%llu kernels_a=%d kernels_b=%d stall_ns=%lld "
	       "b_sync_ns=%lld t0_ns=%lld t1_ns=%lld\n",
	       ida, idb, rounds * (A_KERNELS + 1), rounds * B_KERNELS,
	       (long long)rounds * STALL_MS * 1000000, b_sync_ns, t0, t1);
	return 0;
}
