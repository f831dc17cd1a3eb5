/* SPDX-License-Identifier: MIT */
/*
 * faults.c - a test workload with deterministic software-counter values:
 * `faults N` writes one byte to each of N fresh heap pages (N minor faults;
 * the heap block is what massif sees) and sleeps N/10 times for 100 us (as
 * many voluntary context switches). `faults N M` then adds M million steps
 * of an integer loop: CPU time without faults or switches.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc >= 2 ? atol(argv[1]) : 0, pg = sysconf(_SC_PAGESIZE);
	long spin = argc == 3 ? atol(argv[2]) * 1000000 : 0;
	struct timespec ts = { 0, 100000 };
	volatile unsigned long x = 1;

	if (n <= 0 || argc > 3 || spin < 0)
		return 2;
	char *m = NULL;

	if (posix_memalign((void **)&m, (size_t)pg, (size_t)(n * pg)))
		return 1;
	/* No huge pages: one fault per page, whatever the THP setting. */
	madvise(m, (size_t)(n * pg), MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		m[i * pg] = 1;
	for (long i = 0; i < n / 10; i++)
		nanosleep(&ts, NULL);
	for (long i = 0; i < spin; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	free(m);
	return 0;
}
