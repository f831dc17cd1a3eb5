/* SPDX-License-Identifier: MIT */
/*
 * peak.c - a test workload of known peak RSS, built static (no loader, no
 * libc mapped: a few hundred KB). `peak N FILE` touches N fresh pages, then
 * appends its own VmHWM in kB (from /proc/self/status) to FILE as one line:
 * the ground truth for the rubric's peak RSS of the run.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc == 3 ? atol(argv[1]) : -1, pg = sysconf(_SC_PAGESIZE), kb = -1;
	char line[256];
	FILE *f;

	if (n < 0)
		return 2;
	char *m = n ? mmap(NULL, (size_t)(n * pg), PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
		    : NULL;
	if (m == MAP_FAILED)
		return 1;
	for (long i = 0; i < n; i++)
		m[i * pg] = 1;
	f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	f = fopen(argv[2], "a");
	if (!f || fprintf(f, "%ld\n", kb) < 0 || fclose(f))
		return 1;
	return 0;
}
