// SPDX-License-Identifier: MIT
/*
 * run.c - the poll loop of `xperf-bpf` (run.h). The target's exit is seen
 * through a pidfd (it becomes readable once the process is a zombie, after
 * its exit tracepoint has put XP_EV_EXIT in the ring), so a lost exit
 * record cannot leave the run hanging.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "userspace/run/run.h"

#include "lib/clock_anchor.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

struct xpb_sinks {
	void *state[16];
	bool on[16];
	int err;	/* first sink error: stops the run */
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

size_t xpb_ring_size_arg(const struct argp_state *state, const char *arg)
{
	static const char why[] = "a power of two, 4096..1G";
	size_t v = xp_args_integer(state, arg, 4096, 1 << 30, why);

	if (v & (v - 1))
		xp_args_invalid(state, why);
	return v;
}

void xpb_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

struct xpb_sinks *xpb_sinks_new(void)
{
	return calloc(1, sizeof(struct xpb_sinks));
}

void xpb_sinks_free(struct xpb_sinks *s)
{
	if (!s)
		return;
	for (unsigned int i = 0; i < xpb_nsinks && i < 16; i++)
		if (s->on[i])
			xpb_sinks[i]->end(s->state[i], NULL, NULL);
	free(s);
}

int xpb_sinks_begin(struct xpb_sinks *s, const struct xpb_run *run)
{
	for (unsigned int i = 0; i < xpb_nsinks && i < 16; i++) {
		int e = xpb_sinks[i]->begin(run, &s->state[i]);

		if (e == -EOPNOTSUPP)
			continue;
		if (e)
			return e;
		s->on[i] = true;
	}
	return 0;
}

int xpb_sinks_event(void *ctx, const struct xk_hdr *rec)
{
	struct xpb_sinks *s = ctx;

	for (unsigned int i = 0; i < xpb_nsinks && i < 16; i++) {
		int e = s->on[i] ? xpb_sinks[i]->on_event(s->state[i], rec) : 0;

		if (e < 0) {
			s->err = e;
			return e;
		}
	}
	return 0;
}

int xpb_sinks_end(struct xpb_sinks *s, struct xpc *c, const struct xpc_counts *counts)
{
	int err = 0;

	for (unsigned int i = 0; i < xpb_nsinks && i < 16; i++)
		if (s->on[i] && xpb_sinks[i]->end(s->state[i], c, counts))
			err = -EIO;
	free(s);	/* every sink ended: nothing for xpb_sinks_free to end */
	return err;
}

/* pidfd_open failed with ESRCH: the target was reaped before it could be watched. */
#define PIDFD_GONE (-2)

static bool exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return pidfd == PIDFD_GONE || (pidfd >= 0 && poll(&p, 1, 0) == 1);
}

/*
 * A pidfd on the traced process. It may have exited and been reaped by its
 * parent since it was added (attach while it ends): the run then ends at
 * once instead of waiting for an exit it will never see.
 */
static int watch_root(pid_t pid)
{
	int fd = syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 && errno == ESRCH ? PIDFD_GONE : fd;
}

/* Losses are printed even with --quiet: they are never silent. */
static void report(const struct xpc_counts *k, bool quiet)
{
	uint64_t total = 0, lost = xpc_counts_dropped(k);

	for (int t = 0; t < XP_EV_TYPE_MAX; t++)
		total += k->records[t];
	if (!quiet)
		fprintf(stderr, "xperf-bpf: %llu records, %llu lost, %llu malformed\n",
			(unsigned long long)total, (unsigned long long)lost,
			(unsigned long long)k->malformed);
	if (!lost)
		return;
	fprintf(stderr, "xperf-bpf: warning: %llu records lost (ring full:",
		(unsigned long long)lost);
	for (int t = 0; t < XP_EV_TYPE_MAX; t++)
		if (k->drops[t])
			fprintf(stderr, " %s %llu", xpc_type_name(t),
				(unsigned long long)k->drops[t]);
	fprintf(stderr, "); raise --ring-size\n");
}

int xpb_run(struct xpc *c, struct xpb_sinks *sinks, const struct xpb_run *run,
	    double duration_s)
{
	int pidfd = watch_root(run->root);
	double end = duration_s > 0 ? xp_now_s() + duration_s : 0;
	struct xpc_counts counts;
	int n = 0, code = XP_EXIT_OK;

	while (!stop_signal && !sinks->err) {
		n = xpc_poll(c, 100);
		if (n < 0 || exited(pidfd) || (end && xp_now_s() >= end))
			break;
	}
	if (n >= 0 && !sinks->err)
		n = xpc_drain(c);
	if (n < 0 && !sinks->err) {
		fprintf(stderr, "xperf-bpf: reading the ring buffer: %s\n", strerror(-n));
		code = XP_EXIT_FAIL;
	}
	if (sinks->err)
		code = XP_EXIT_FAIL;
	if (pidfd >= 0)
		close(pidfd);
	if (xpc_counts(c, &counts)) {
		fprintf(stderr, "xperf-bpf: %s\n", xpc_error(c));
		code = XP_EXIT_FAIL;
	}
	if (stop_signal && !run->quiet)
		fprintf(stderr, "xperf-bpf: %s: detaching\n", strsignal(stop_signal));
	if (xpb_sinks_end(sinks, c, &counts))
		code = XP_EXIT_FAIL;
	report(&counts, run->quiet);
	return code;
}
