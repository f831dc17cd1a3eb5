/* SPDX-License-Identifier: MIT */
/*
 * commands.h - the subcommands of `xperf`. Each takes the arguments after its
 * name (argv[0] is the subcommand) and returns the process exit code, one
 * of lib/exit_codes.h's table.
 */
#ifndef XPERF_CLI_COMMANDS_H
#define XPERF_CLI_COMMANDS_H

#include "lib/exit_codes.h"

int cmd_analyze(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_fleet(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_theory(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_gpu(int argc, char **argv);
int cmd_rubric(int argc, char **argv);

#endif /* XPERF_CLI_COMMANDS_H */
