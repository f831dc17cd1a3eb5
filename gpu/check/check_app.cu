// SPDX-License-Identifier: MIT
/*
 * check_app.cu - the CUDA program gpu_check.sh runs with and without the
 * collector. Three kernels (saxpy, scale, spin) launched a known number of
 * times, host<->device copies and a memset, and deliberate host-side stalls
 * (the GPU idles while the host sleeps). Each kernel is bracketed by CUDA
 * events on its stream; the summed event times are the ground truth for the
 * collector's kernel time. Prints one line of key=value results.
 *
 * With --hold-cupti it first subscribes to CUPTI itself, as another
 * profiler would, and prints the result (the collector must then step back).
 *
 * With CHECK_APP_GO_FILE set, it waits for that file to exist before its
 * first copy or launch (xperf-bpf plants its uprobes once libcudart is mapped).
 *
 * usage: check_app [stall_ms] [--hold-cupti]
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gpu/check/cuda_check.h"
#include <cupti.h>


enum { N = 1 << 24, ROUNDS = 4, PER_ROUND = 5, STALLS = ROUNDS - 1 };

__global__ void saxpy(int n, float a, const float *x, float *y)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		y[i] = a * x[i] + y[i];
}

__global__ void scale(int n, float a, float *y)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		y[i] *= a;
}

/* Busy for about `cycles` SM clocks: a kernel of controlled length. */
__global__ void spin(long long cycles, float *sink)
{
	long long t0 = clock64();

	while (clock64() - t0 < cycles)
		;
	if (threadIdx.x == 0 && blockIdx.x == 0)
		sink[0] = (float)(clock64() - t0);
}

/* CLOCK_MONOTONIC, the clock the collector gives CUPTI. */
static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void CUPTIAPI ignore(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *)
{
}

/* Subscribe to CUPTI like a profiler would; returns the CUptiResult (-1: no libcupti). */
static int hold_cupti(void)
{
	typedef CUptiResult (*subscribe_fn)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
	void *h = dlopen("libcupti.so", RTLD_NOW);
	subscribe_fn sub;
	CUpti_SubscriberHandle s;

	if (!h)
		h = dlopen(CUPTI_LIB, RTLD_NOW);
	sub = h ? (subscribe_fn)dlsym(h, "cuptiSubscribe") : NULL;
	return sub ? (int)sub(&s, ignore, NULL) : -1;
}

int main(int argc, char **argv)
{
	int stall_ms = argc > 1 ? atoi(argv[1]) : 50;
	int hold = argc > 2 && !strcmp(argv[2], "--hold-cupti");
	float *x, *y, *host, total_ms = 0;
	cudaEvent_t ev[2 * 3 * ROUNDS * PER_ROUND];
	cudaStream_t s;
	int nev = 0, kernels = 0;
	long long t0;

	if (hold)
		printf("holder_subscribe=%d\n", hold_cupti());
	CHECK(cudaSetDevice(0));
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaMalloc(&x, N * sizeof(float)));
	CHECK(cudaMalloc(&y, N * sizeof(float)));
	CHECK(cudaMallocHost(&host, N * sizeof(float)));
	for (int i = 0; i < N; i++)
		host[i] = (float)i;
	for (int i = 0; i < 2 * 3 * ROUNDS * PER_ROUND; i++)
		CHECK(cudaEventCreate(&ev[i]));
	/* under xperf-bpf: hold the first probed call until the test sees the probes in */
	for (const char *go = getenv("CHECK_APP_GO_FILE"); go && access(go, F_OK);)
		usleep(10000);
	t0 = now_ns();
	CHECK(cudaMemcpyAsync(x, host, N * sizeof(float), cudaMemcpyHostToDevice, s));
	CHECK(cudaMemsetAsync(y, 0, N * sizeof(float), s));
	for (int r = 0; r < ROUNDS; r++) {
		for (int k = 0; k < PER_ROUND; k++) {
			CHECK(cudaEventRecord(ev[nev++], s));
			saxpy<<<1024, 256, 0, s>>>(N, 2.0f, x, y);
			CHECK(cudaEventRecord(ev[nev++], s));
			CHECK(cudaEventRecord(ev[nev++], s));
			scale<<<1024, 256, 0, s>>>(N, 0.5f, y);
			CHECK(cudaEventRecord(ev[nev++], s));
			CHECK(cudaEventRecord(ev[nev++], s));
			spin<<<1, 32, 0, s>>>(1000000, y);
			CHECK(cudaEventRecord(ev[nev++], s));
			kernels += 3;
		}
		CHECK(cudaGetLastError());
		CHECK(cudaMemcpyAsync(host, y, N * sizeof(float), cudaMemcpyDeviceToHost, s));
		CHECK(cudaStreamSynchronize(s));
		if (r < ROUNDS - 1)
			usleep(stall_ms * 1000); /* the deliberate host-side stall */
	}
	CHECK(cudaDeviceSynchronize());
	for (int i = 0; i < nev; i += 2) {
		float ms;

		CHECK(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
		total_ms += ms;
	}
	long long t1 = now_ns();

	printf("kernels=%d event_kernel_ns=%.0f loop_ms=%.3f stalls=%d stall_ms=%d t0_ns=%lld "
	       "t1_ns=%lld\n",
	       kernels, total_ms * 1e6, (t1 - t0) / 1e6, STALLS, stall_ms, t0, t1);
	return 0;
}
