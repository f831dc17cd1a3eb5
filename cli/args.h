/* SPDX-License-Identifier: MIT */
/*
 * args.h - rules every subcommand's parser shares: an option given twice is
 * a usage error (exit 64), never "the last one wins".
 */
#ifndef XPERF_CLI_ARGS_H
#define XPERF_CLI_ARGS_H

/*
 * Whether arg is one of names (a NULL-terminated list of at most 32 options)
 * already seen; marks it seen in *seen otherwise. Prints
 * "xperf CMD: OPTION given twice" when it was.
 */
int xp_arg_repeated(const char *cmd, const char *const names[], const char *arg, unsigned *seen);

#endif /* XPERF_CLI_ARGS_H */
