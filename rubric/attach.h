/* SPDX-License-Identifier: MIT */
/*
 * attach.h - `--attach "CMD {PID}"`: another tool (perf stat, strace,
 * bpftrace) started on each scored run while the run's child is held before
 * execve, so that it observes exactly the runs the rubric measures.
 *
 * The command runs without a shell, in its own process group, stdin from
 * /dev/null and stdout to xperf's stderr. The child is released once the
 * command is ready: its main thread asleep in a wait-for-events system call
 * (poll, epoll, select, wait4, sigsuspend...), the state perf stat, strace
 * and bpftrace reach once attached; or, with --attach-wait, after a fixed
 * delay. After the child is reaped the group gets SIGINT, the stop request
 * these tools answer by writing their results; exit 0 or death by that
 * SIGINT is success. A failing command never changes the run's measurements.
 */
#ifndef XPERF_RUBRIC_ATTACH_H
#define XPERF_RUBRIC_ATTACH_H

#include <stddef.h>
#include <sys/types.h>

#define XP_ATTACH_READY_S 10 /* longest wait for readiness */
#define XP_ATTACH_STOP_S 5   /* SIGINT to exit, then SIGKILL */

struct rb_attach_spec {
	const char *tmpl; /* {PID}: the run's pid, {SIZE}: its size, {RUN}: 1..reps */
	long size;
	int run;
	double wait_s; /* > 0: release after this delay instead of detecting readiness */
};

/*
 * Start the command on target and wait until it is ready. Returns its pid,
 * or -1 with a one-line reason in err (nothing left running).
 */
pid_t rb_attach_start(const struct rb_attach_spec *s, pid_t target, char *err, size_t errlen);
/* Stop and reap the command. Returns 0, or -1 with the reason in err. */
int rb_attach_stop(pid_t cmd, char *err, size_t errlen);

#endif /* XPERF_RUBRIC_ATTACH_H */
