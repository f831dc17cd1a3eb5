// SPDX-License-Identifier: MIT
/*
 * workload.c - known workloads whose ground truth the tests compare with
 * what xperf-bpf saw. Each mode prints its measurement as one JSON line.
 *
 *   busy MS        spin until MS ms of CPU; print getrusage CPU time (ns)
 *   sleep MS       nanosleep MS ms; print the measured wall time (ns)
 *   threads N      start and join N threads, one after another
 *   syscalls N     N write(2)s of 1 byte to /dev/null; print the wall time
 *   mmaps N        N mmap(PROT_EXEC) + munmap of a page of this executable
 *                  (a dlopen's syscall, the TLS tier's map watch); the same
 *   late MS        at SIGUSR1 (after MS ms at most) start one thread and one
 *                  child (sh -c "exit 7"); its pid goes to stderr once the
 *                  signal is awaited (a test sends it once its tracer is in)
 *   pingpong N [R] N round trips of one byte between two processes over
 *                  pipes (6 scheduler state changes each), paced to R round
 *                  trips per second when R > 0; print the wall time of the
 *                  loop and the CPU time of both processes (ns)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

static long long ns_of(struct timespec t)
{
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return ns_of(t);
}

static long long rusage_ns(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

/* CPU time of this process and of its waited-for children. */
static long long cpu_ns(void)
{
	return rusage_ns(RUSAGE_SELF) + rusage_ns(RUSAGE_CHILDREN);
}

static void busy(long ms)
{
	struct timespec t;
	volatile unsigned long x = 0;

	do {
		for (int i = 0; i < 100000; i++)
			x += i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while (ns_of(t) < ms * 1000000LL);
	(void)x;
	printf("{\"pid\": %d, \"rusage_cpu_ns\": %lld}\n", getpid(), cpu_ns());
}

static void sleep_ms(long ms)
{
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };
	long long t0 = mono_ns();

	nanosleep(&d, NULL);
	printf("{\"pid\": %d, \"slept_ns\": %lld}\n", getpid(), mono_ns() - t0);
}

static void *noop(void *arg)
{
	return arg;
}

static void threads(long n)
{
	for (long i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, noop, NULL) == 0)
			pthread_join(t, NULL);
	}
	printf("{\"pid\": %d, \"threads\": %ld}\n", getpid(), n);
}

/* A wall time and the CPU time so far, as one JSON line. */
static void report(long long ns)
{
	printf("{\"pid\": %d, \"ns\": %lld, \"cpu_ns\": %lld}\n", getpid(), ns, cpu_ns());
}

static void syscalls(long n)
{
	int fd = open("/dev/null", O_WRONLY);
	long long t0 = mono_ns();

	for (long i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1)
			break;
	report(mono_ns() - t0);
	close(fd);
}

static void mmaps(long n)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	long page = sysconf(_SC_PAGESIZE);
	long long t0 = mono_ns();

	for (long i = 0; i < n; i++) {
		void *p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED)
			break;
		munmap(p, page);
	}
	report(mono_ns() - t0);
	close(fd);
}

static void on_go(int sig)
{
	(void)sig;
}

static void late(long ms)
{
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };
	struct sigaction go = { .sa_handler = on_go };
	pthread_t t;
	pid_t child;

	sigaction(SIGUSR1, &go, NULL);	/* no SA_RESTART: the signal ends the sleep */
	fprintf(stderr, "%d\n", (int)getpid());
	nanosleep(&d, NULL);
	pthread_create(&t, NULL, noop, NULL);
	pthread_join(t, NULL);
	child = fork();
	if (child == 0) {
		execlp("sh", "sh", "-c", "exit 7", (char *)NULL);
		_exit(127);
	}
	waitpid(child, NULL, 0);
	printf("{\"pid\": %d, \"child\": %d}\n", getpid(), child);
}

/* Busy-wait until t_ns (pacing needs better than the timer slack). */
static void spin_until(long long t_ns)
{
	while (mono_ns() < t_ns)
		;
}

static void pingpong(long n, long rate)
{
	int ab[2], ba[2];
	long long t0;
	char c = 'x';
	pid_t peer;

	if (pipe(ab) || pipe(ba))
		exit(1);
	peer = fork();
	if (peer == 0) {
		close(ab[1]);	/* so that the parent's close is our EOF */
		while (read(ab[0], &c, 1) == 1 && write(ba[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	t0 = mono_ns();
	for (long i = 0; i < n; i++) {
		if (rate > 0)
			spin_until(t0 + i * 1000000000LL / rate);
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			break;
	}
	t0 = mono_ns() - t0;
	close(ab[1]);
	waitpid(peer, NULL, 0);
	report(t0);
}

int main(int argc, char **argv)
{
	static const struct { const char *name; void (*fn)(long); } modes[] = {
		{ "busy", busy }, { "sleep", sleep_ms }, { "threads", threads },
		{ "syscalls", syscalls }, { "mmaps", mmaps }, { "late", late },
	};
	long arg = argc > 2 ? strtol(argv[2], NULL, 10) : 0;

	if (argc > 2 && !strcmp(argv[1], "pingpong")) {
		pingpong(arg, argc > 3 ? strtol(argv[3], NULL, 10) : 0);
		return fflush(stdout) ? 1 : 0;
	}
	for (size_t i = 0; argc > 2 && i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (strcmp(argv[1], modes[i].name))
			continue;
		modes[i].fn(arg);
		return fflush(stdout) ? 1 : 0;
	}
	fprintf(stderr, "usage: workload busy|sleep|threads|syscalls|mmaps|late N | pingpong N [RATE]\n");
	return 64;
}
