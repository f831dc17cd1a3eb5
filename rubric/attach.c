/* SPDX-License-Identifier: MIT */
/*
 * attach.c - see attach.h. Readiness is read from /proc/<pid>/syscall, which
 * shows "running" for a runnable task and the system call number of a
 * sleeping one: perf stat -p opens its counters, enables them, then polls,
 * so a poll there means it is counting.
 */
#define _GNU_SOURCE
#include "rubric/attach.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock_anchor.h"
#include "rubric/cmdline.h"
#include "rubric/runner.h"

extern char **environ;

/* System calls a tool sleeps in once it waits for events (the legacy ones exist on x86 only). */
static const long wait_calls[] = {
#ifdef SYS_poll
	SYS_poll,
#endif
#ifdef SYS_select
	SYS_select,
#endif
#ifdef SYS_epoll_wait
	SYS_epoll_wait,
#endif
#ifdef SYS_pause
	SYS_pause,
#endif
#ifdef SYS_epoll_pwait2
	SYS_epoll_pwait2,
#endif
	SYS_ppoll,  SYS_pselect6,      SYS_epoll_pwait,
	SYS_wait4,  SYS_waitid,        SYS_rt_sigsuspend,
	SYS_rt_sigtimedwait,
};

/* 1 when the thread pid is asleep in one of wait_calls. */
static int waiting(pid_t pid)
{
	char path[64], buf[64], *end;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	long nr = strtol(buf, &end, 10);
	if (end == buf) /* "running" */
		return 0;
	for (size_t i = 0; i < sizeof(wait_calls) / sizeof(wait_calls[0]); i++)
		if (nr == wait_calls[i])
			return 1;
	return 0;
}

static pid_t spawn(char *const argv[], char *err, size_t errlen)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	pid_t pid = -1;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, 2, 1);
	posix_spawnattr_init(&at);
	/* Its own group: a terminal's ^C stops xperf's runs, not the tool mid-run. */
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&at, 0);
	int e = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	if (e) {
		snprintf(err, errlen, "cannot execute '%s': %s", argv[0], strerror(e));
		return -1;
	}
	return pid;
}

/* Poll every millisecond until ready; 0, or -1 with err set (pid reaped when it exited). */
static int await_ready(pid_t pid, double wait_s, char *err, size_t errlen)
{
	const struct timespec tick = { 0, 1000000 };
	double end = xp_now_s() + (wait_s > 0 ? wait_s : XP_ATTACH_READY_S);
	int st;

	for (;;) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			char how[64];
			rb_describe_status(st, how, sizeof(how));
			snprintf(err, errlen, "%s before it was ready", how);
			return -1;
		}
		if (wait_s <= 0 && waiting(pid))
			return 0;
		if (xp_now_s() >= end) {
			if (wait_s > 0)
				return 0;
			snprintf(err, errlen,
				 "not waiting for events after %d s (see --attach-wait)",
				 XP_ATTACH_READY_S);
			kill(-pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			return -1;
		}
		nanosleep(&tick, NULL);
	}
}

pid_t rb_attach_start(const struct rb_attach_spec *s, pid_t target, char *err, size_t errlen)
{
	const struct rb_cmd_var vars[] = { { "{PID}", target },
					   { "{SIZE}", s->size },
					   { "{RUN}", s->run } };
	struct rb_cmd cmd;

	if (rb_cmd_expand(s->tmpl, vars, 3, &cmd, err, errlen))
		return -1;
	pid_t pid = spawn(cmd.argv, err, errlen);
	if (pid < 0 || await_ready(pid, s->wait_s, err, errlen))
		return -1;
	return pid;
}

int rb_attach_stop(pid_t cmd, char *err, size_t errlen)
{
	int st = 0;

	kill(-cmd, SIGINT);
	int killed = rb_await_exit(cmd, XP_ATTACH_STOP_S);
	if (killed)
		kill(-cmd, SIGKILL); /* and what it started */
	while (waitpid(cmd, &st, 0) < 0 && errno == EINTR)
		;
	if (killed) {
		snprintf(err, errlen, "did not exit within %d s of SIGINT: killed", XP_ATTACH_STOP_S);
		return -1;
	}
	if ((WIFEXITED(st) && WEXITSTATUS(st) == 0) || (WIFSIGNALED(st) && WTERMSIG(st) == SIGINT))
		return 0;
	rb_describe_status(st, err, errlen);
	return -1;
}
