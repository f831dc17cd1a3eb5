/* SPDX-License-Identifier: MIT */
/*
 * exit_codes.h - the exit status of every xperf command (`xperf <cmd>`,
 * `xperf-bpf`), one table with one meaning everywhere:
 *
 *   0  success
 *   1  runtime failure: a write failed (no such directory, permission, disk
 *      full, I/O error), BPF load or attach failed, a run or stage failed, a
 *      signal stopped the work
 *   2  invalid input: a file that is missing, unreadable, not a regular file
 *      or not valid; an output path that exists and is not a regular file;
 *      no such process or command
 *   64 usage error: unknown, repeated or malformed option (EX_USAGE)
 *   75 temporary failure: the session directory is in use by another run
 *      (EX_TEMPFAIL)
 *   77 not permitted: tracing without root or CAP_BPF + CAP_PERFMON
 *      (EX_NOPERM)
 */
#ifndef XPERF_LIB_EXIT_CODES_H
#define XPERF_LIB_EXIT_CODES_H

#define XP_EXIT_OK 0
#define XP_EXIT_FAIL 1
#define XP_EXIT_INVALID 2
#define XP_EXIT_USAGE 64
#define XP_EXIT_BUSY 75
#define XP_EXIT_NOPERM 77

#endif /* XPERF_LIB_EXIT_CODES_H */
