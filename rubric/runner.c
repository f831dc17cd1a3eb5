/* SPDX-License-Identifier: MIT */
/*
 * runner.c - one measured run. The child blocks on a pipe until the parent
 * has attached the counters (inherit on, enabled at exec), so the parent's
 * fork bookkeeping is not counted; a second, close-on-exec pipe carries an
 * execvp errno back, which tells "cannot execute" from "exited 127". An
 * --attach command is started on the held child and stopped after the reap;
 * its failure is the run's attach_err, never the run's own status.
 */
#define _GNU_SOURCE /* pipe2 */
#include "rubric/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/atomic_file.h"
#include "lib/clock_anchor.h"
#include "rubric/attach.h"

volatile sig_atomic_t rb_interrupted;

static void on_signal(int sig)
{
	rb_interrupted = sig;
}

void rb_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

double rb_now_s(void)
{
	return xp_now_ns(CLOCK_MONOTONIC) / 1e9;
}

static int open_out(const char *path)
{
	return path ? xp_out_open_stream(path, 0) : open("/dev/null", O_WRONLY | O_CLOEXEC);
}

/* In the child: wait for the go byte, set up stdio and cwd, exec. Never returns. */
static void child(char *const argv[], const struct rb_run_io *io, int go, int report)
{
	char c;
	int e = 0;
	int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int out = open_out(io->stdout_path), errfd = open_out(io->stderr_path);

	if (read(go, &c, 1) != 1)
		_exit(127);
	/* stdin from /dev/null: a run must not depend on, or eat, the terminal's input. */
	if (in < 0 || out < 0 || errfd < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
	    dup2(errfd, 2) < 0 ||
	    (io->cwd && chdir(io->cwd)))
		e = errno;
	else
		execvp(argv[0], argv);
	e = e ? e : errno;
	if (write(report, &e, sizeof(e)) < 0)
		_exit(126);
	_exit(127);
}

/* A pidfd makes the wait a poll; without one (kernels before 5.3) there is no limit. */
int rb_await_exit(pid_t pid, double timeout_s)
{
	int pfd = timeout_s > 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
	double end = rb_now_s() + timeout_s;
	int killed = 0;

	while (pfd >= 0) {
		struct pollfd p = { pfd, POLLIN, 0 };
		double left = end - rb_now_s();
		int rc = left > 0 ? poll(&p, 1, (int)(left * 1000) + 1) : 0;
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc == 0)
			killed = kill(pid, SIGKILL) == 0;
		break;
	}
	if (pfd >= 0)
		close(pfd);
	return killed;
}

void rb_describe_status(int st, char *err, size_t errlen)
{
	if (WIFSIGNALED(st))
		snprintf(err, errlen, "killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else
		snprintf(err, errlen, "exited with status %d", WEXITSTATUS(st));
}

enum rb_run_status rb_run_once(char *const argv[], const struct rb_run_io *io,
				  struct rb_run *run, char *err, size_t errlen)
{
	int go[2], rep[2], e = 0;
	struct xp_counter_set set;
	struct rusage ru;

	memset(run, 0, sizeof(*run));
	if (pipe2(go, O_CLOEXEC) || pipe2(rep, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return XP_RUN_SYSERR;
	}
	pid_t pid = fork();
	if (pid == 0)
		child(argv, io, go[0], rep[1]);
	close(go[0]);
	close(rep[1]);
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(go[1]);
		close(rep[0]);
		return XP_RUN_SYSERR;
	}
	if (io->counters)
		xp_counters_open_child(&set, pid, (1ull << XP_CTR_COUNT) - 1);
	pid_t tool = io->attach ? rb_attach_start(io->attach, pid, run->attach_err,
						  sizeof(run->attach_err))
				: -1;
	double t0 = rb_now_s();
	ssize_t w = write(go[1], "g", 1);
	close(go[1]);
	ssize_t got = read(rep[0], &e, sizeof(e));
	close(rep[0]);
	int st = 0, killed = rb_await_exit(pid, io->timeout_s);
	pid_t r;
	while ((r = wait4(pid, &st, 0, &ru)) < 0 && errno == EINTR)
		;
	run->wall_s = rb_now_s() - t0;
	if (io->counters) {
		xp_counters_read(&set, &run->ctr);
		xp_counters_close(&set);
	}
	if (tool > 0)
		rb_attach_stop(tool, run->attach_err, sizeof(run->attach_err));
	if (r < 0 || w != 1) {
		snprintf(err, errlen, "wait4: %s", strerror(errno));
		return XP_RUN_SYSERR;
	}
	run->status = st;
	run->maxrss_kb = ru.ru_maxrss;
	if (got == (ssize_t)sizeof(e)) {
		snprintf(err, errlen, "cannot execute '%s': %s", argv[0], strerror(e));
		return XP_RUN_NOEXEC;
	}
	if (killed) {
		snprintf(err, errlen, "killed after the --timeout of %g s", io->timeout_s);
		return XP_RUN_EXIT;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		rb_describe_status(st, err, errlen);
		return XP_RUN_EXIT;
	}
	return XP_RUN_OK;
}
