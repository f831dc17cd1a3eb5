/* SPDX-License-Identifier: MIT */
/*
 * runner.h - run the target once, measured: fork, open the perf_event
 * counters on the child while it waits before execve, release it, reap it
 * with wait4 (peak RSS) and read the counters. Wall time is CLOCK_MONOTONIC
 * from the release to the reap. Also the process helpers that --attach
 * shares (attach.h).
 */
#ifndef XPERF_RUBRIC_RUNNER_H
#define XPERF_RUBRIC_RUNNER_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "rubric/rubric.h"

/* How a run went, beyond the measurements. */
enum rb_run_status {
	XP_RUN_OK,     /* exited 0 */
	XP_RUN_EXIT,   /* exited non-zero or was killed: err says which */
	XP_RUN_NOEXEC, /* execvp failed (missing or not executable): err says why */
	XP_RUN_SYSERR, /* fork/pipe/wait failed */
};

/*
 * The signal number of a SIGINT/SIGTERM/SIGHUP received since
 * rb_catch_signals(), else 0. Stages stop starting new runs when it is
 * set, so that the runs already measured are scored and written.
 */
extern volatile sig_atomic_t rb_interrupted;
void rb_catch_signals(void);

/* Where a run happens and where its output goes (NULL: current dir, /dev/null). */
struct rb_run_io {
	const char *cwd;
	const char *stdout_path, *stderr_path; /* created 0600, truncated */
	int counters; /* 0: no perf_event counters (Valgrind and objdump runs) */
	double timeout_s; /* SIGKILL the run past this many seconds; 0: no limit */
	const struct rb_attach_spec *attach; /* NULL: no --attach command on this run */
};

struct rb_attach_spec;

/* Run argv (argv[0] searched on PATH) once, as io says. */
enum rb_run_status rb_run_once(char *const argv[], const struct rb_run_io *io,
				  struct rb_run *run, char *err, size_t errlen);

/*
 * Wait until the child pid exits or timeout_s passes (0: no limit), then
 * SIGKILL it; it is left to reap. Returns 1 when it was killed for the limit.
 */
int rb_await_exit(pid_t pid, double timeout_s);
/* "exited with status N" or "killed by signal N (name)" for a wait status. */
void rb_describe_status(int st, char *err, size_t errlen);

#endif /* XPERF_RUBRIC_RUNNER_H */
