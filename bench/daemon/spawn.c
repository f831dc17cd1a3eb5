// SPDX-License-Identifier: MIT
/*
 * spawn.c RATE SECONDS PATH - starts PATH RATE times a second for SECONDS
 * (posix_spawn, paced on absolute deadlines so a late start does not slow
 * the rest), reaps them, and prints how many it started and exited.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

int main(int argc, char **argv)
{
	long rate, total, started = 0, reaped = 0;
	struct timespec next;
	char *child[] = { argv[argc > 3 ? 3 : 0], NULL };

	if (argc != 4 || (rate = atol(argv[1])) <= 0 || atol(argv[2]) <= 0) {
		fprintf(stderr, "usage: spawn RATE SECONDS PATH\n");
		return 64;
	}
	total = rate * atol(argv[2]);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (; started < total; started++) {
		pid_t pid;

		next.tv_nsec += 1000000000L / rate;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		if (posix_spawn(&pid, child[0], NULL, NULL, child, environ)) {
			perror("posix_spawn");
			return 1;
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			reaped++;
	}
	while (waitpid(-1, NULL, 0) > 0)
		reaped++;
	printf("{\"started\": %ld, \"exited\": %ld}\n", started, reaped);
	return 0;
}
