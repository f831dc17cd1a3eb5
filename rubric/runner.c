/* SPDX-License-Identifier: MIT */
/*
 * runner.c - one measured run. The child blocks on a pipe until the parent
 * has attached the counters (inherit on, enabled at exec), so the parent's
 * fork bookkeeping is not counted; a second, close-on-exec pipe carries an
 * execvp errno back, which tells "cannot execute" from "exited 127". An
 * --attach command is started on the held child and stopped after the reap;
 * its failure is the run's attach_err, never the run's own status.
 *
 * Peak RSS: wait4's ru_maxrss also holds the RSS the child had before execve
 * (a fork of xperf holds about 1.7 MB: a static program of 0.8 MB read 1.7),
 * as exec records the old memory's high-water mark. So the child is traced for one
 * stop only, at its exit (PTRACE_O_TRACEEXIT), where its own memory is still
 * mapped and /proc/PID/status's VmHWM is the program's peak. Not with
 * --attach (strace and gdb trace it themselves) or where ptrace is refused:
 * then ru_maxrss, source "rusage".
 */
#define _GNU_SOURCE /* pipe2 */
#include "rubric/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
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
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
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
	double end = xp_now_s() + timeout_s;
	int killed = 0;

	while (pfd >= 0) {
		struct pollfd p = { pfd, POLLIN, 0 };
		double left = end - xp_now_s();
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

/*
 * What the held child may still fault in between its VmHWM read and execve
 * (opening stdio, the PATH walk: 340 KB measured); a child of the program
 * that peaked less than this above it is not told from that.
 */
#define XP_RB_PRE_EXEC_SLACK_KB 1024

/* VmHWM of pid in kB (its memory's high-water mark), or -1. */
static long vm_hwm_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* Let a stopped tracee go on: its signal passed on, its exit's VmHWM read on the way out. */
static void resume(pid_t pid, int st, long *hwm_kb)
{
	unsigned event = (unsigned)st >> 16;
	int sig = event ? 0 : WSTOPSIG(st);

	if (event == PTRACE_EVENT_EXIT)
		*hwm_kb = vm_hwm_kb(pid);
	if (event == PTRACE_EVENT_STOP && WSTOPSIG(st) != SIGTRAP)
		ptrace(PTRACE_LISTEN, pid, 0, 0); /* a group-stop (SIGSTOP) stays one until SIGCONT */
	else
		ptrace(PTRACE_CONT, pid, 0, (long)sig);
}

/*
 * Reap the traced pid, resuming it at each stop. SIGCHLD, blocked meanwhile,
 * wakes the wait (a stop does not make a pidfd readable); past timeout_s (0:
 * none) it is killed and *killed set. Returns wait4's result.
 */
static pid_t reap_traced(pid_t pid, double timeout_s, int *st, struct rusage *ru, long *hwm_kb,
			 int *killed)
{
	double end = xp_now_s() + timeout_s;
	sigset_t chld, old;
	pid_t r;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	while ((r = wait4(pid, st, WNOHANG | __WALL, ru)) >= 0) {
		double left = end - xp_now_s();
		struct timespec ts = { (time_t)left, (long)((left - (time_t)left) * 1e9) };

		if (r == pid && !WIFSTOPPED(*st))
			break;
		if (r == pid)
			resume(pid, *st, hwm_kb);
		else if (timeout_s > 0 && left <= 0 && !*killed)
			*killed = kill(pid, SIGKILL) == 0;
		else
			sigtimedwait(&chld, NULL, timeout_s > 0 && !*killed ? &ts : NULL);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return r;
}

/*
 * The run's peak RSS: the program's own VmHWM at its exit, unless ru_maxrss,
 * which also holds its reaped children's, is above both that and what the
 * child held before execve, plus slack (then a child of it peaked higher).
 */
static void set_peak(struct rb_run *run, long ru_maxrss, long pre_kb, long hwm_kb)
{
	run->rss_exact = hwm_kb > 0;
	run->maxrss_kb = ru_maxrss;
	if (hwm_kb > 0 && (ru_maxrss <= hwm_kb || ru_maxrss <= pre_kb + XP_RB_PRE_EXEC_SLACK_KB))
		run->maxrss_kb = hwm_kb;
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
	int traced = !io->attach &&
		     !ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL);
	long pre_kb = traced ? vm_hwm_kb(pid) : -1, hwm_kb = -1;
	double t0 = xp_now_s();
	ssize_t w = write(go[1], "g", 1);
	close(go[1]);
	ssize_t got = read(rep[0], &e, sizeof(e));
	close(rep[0]);
	int st = 0, killed = traced ? 0 : rb_await_exit(pid, io->timeout_s);
	pid_t r;
	if (traced)
		r = reap_traced(pid, io->timeout_s, &st, &ru, &hwm_kb, &killed);
	else
		while ((r = wait4(pid, &st, 0, &ru)) < 0 && errno == EINTR)
			;
	run->wall_s = xp_now_s() - t0;
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
	set_peak(run, ru.ru_maxrss, pre_kb, hwm_kb);
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
