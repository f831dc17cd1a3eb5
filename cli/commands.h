/* SPDX-License-Identifier: MIT */
/*
 * commands.h - the subcommands of `xperf`. Each takes the arguments after its
 * name (argv[0] is the subcommand) and returns the process exit code:
 *   0 success, 1 runtime failure, 2 invalid input (bad file or data),
 *   64 usage error (as sysexits' EX_USAGE).
 */
#ifndef XPERF_CLI_COMMANDS_H
#define XPERF_CLI_COMMANDS_H

#define XP_EXIT_OK 0
#define XP_EXIT_FAIL 1
#define XP_EXIT_INVALID 2
#define XP_EXIT_USAGE 64

int cmd_analyze(int argc, char **argv);
int cmd_fleet(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_theory(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_gpu(int argc, char **argv);
int cmd_rubric(int argc, char **argv);

#endif /* XPERF_CLI_COMMANDS_H */
