/* SPDX-License-Identifier: MIT */
/*
 * args.h - rules every subcommand's parser shares: an option given twice is
 * a usage error (exit 64), never "the last one wins"; a directory argument
 * that is missing is invalid input (exit 2), the same in every subcommand.
 */
#ifndef XPERF_CLI_ARGS_H
#define XPERF_CLI_ARGS_H

/*
 * Whether arg is one of names (a NULL-terminated list of at most 32 options)
 * already seen; marks it seen in *seen otherwise. Prints
 * "xperf CMD: OPTION given twice" when it was.
 */
int cmd_arg_repeated(const char *cmd, const char *const names[], const char *arg, unsigned *seen);

/*
 * 0 when path is a directory; else prints "xperf CMD: PATH: no such
 * directory" (or "not a directory") and returns XP_EXIT_INVALID.
 */
int cmd_arg_dir(const char *cmd, const char *path);

#endif /* XPERF_CLI_ARGS_H */
