// SPDX-License-Identifier: MIT
/*
 * check_app.cu - the CUDA program gpu_check.sh runs with and without the
 * collector. Three kernels (saxpy, scale, spin) launched a known number of
 * times, host<->device copies and a memset, and deliberate host-side stalls
 * (the GPU idles while the host sleeps). Each kernel is bracketed by CUDA
 * events on its stream; the summed event times are the ground truth for the
 * collector's kernel time. Prints one line of key=value results.
 *
 * usage: check_app [stall_ms]
 */
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <unistd.h>

#include <cuda_runtime.h>

#define CHECK(x)                                                                      \
	do {                                                                          \
		cudaError_t e_ = (x);                                                 \
		if (e_ != cudaSuccess) {                                              \
			fprintf(stderr, "check_app: %s: %s\n", #x, cudaGetErrorString(e_)); \
			exit(1);                                                      \
		}                                                                     \
	} while (0)

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

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	int stall_ms = argc > 1 ? atoi(argv[1]) : 50;
	float *x, *y, *host, total_ms = 0;
	cudaEvent_t ev[2 * 3 * ROUNDS * PER_ROUND];
	cudaStream_t s;
	int nev = 0, kernels = 0;
	double t0;

	CHECK(cudaSetDevice(0));
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaMalloc(&x, N * sizeof(float)));
	CHECK(cudaMalloc(&y, N * sizeof(float)));
	CHECK(cudaMallocHost(&host, N * sizeof(float)));
	for (int i = 0; i < N; i++)
		host[i] = (float)i;
	for (int i = 0; i < 2 * 3 * ROUNDS * PER_ROUND; i++)
		CHECK(cudaEventCreate(&ev[i]));
	t0 = now_ms();
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
	printf("kernels=%d event_kernel_ns=%.0f loop_ms=%.3f stalls=%d stall_ms=%d\n", kernels,
	       total_ms * 1e6, now_ms() - t0, STALLS, stall_ms);
	return 0;
}
