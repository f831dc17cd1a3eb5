/* SPDX-License-Identifier: MIT */
/*
 * runner.h - run the target once, measured: fork, open the perf_event
 * counters on the child while it waits before execve, release it, reap it
 * with wait4 (peak RSS) and read the counters. Wall time is CLOCK_MONOTONIC
 * from the release to the reap.
 */
#ifndef XPERF_RUBRIC_RUNNER_H
#define XPERF_RUBRIC_RUNNER_H

#include <stddef.h>

#include "rubric/rubric.h"

/* How a run went, beyond the measurements. */
enum xp_run_status {
	XP_RUN_OK,        /* exited 0 */
	XP_RUN_EXIT,      /* exited non-zero or was killed: err says which */
	XP_RUN_NOEXEC,    /* execvp failed (missing or not executable): err says why */
	XP_RUN_SYSERR,    /* fork/pipe/wait failed */
};

/*
 * Run argv (argv[0] searched on PATH) in directory `cwd` (NULL: current),
 * stdout to /dev/null, stderr to `stderr_path` (NULL: /dev/null). With
 * `counters` 0 no perf_event counter is opened (Valgrind runs).
 */
enum xp_run_status xp_rb_run_once(char *const argv[], const char *cwd, const char *stderr_path,
				  int counters, struct xp_rb_run *run, char *err, size_t errlen);

#endif /* XPERF_RUBRIC_RUNNER_H */
