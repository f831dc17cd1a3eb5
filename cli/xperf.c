/* SPDX-License-Identifier: MIT */
/* xperf.c - the `xperf` command: dispatches to one subcommand per module. */
#include "cli/commands.h"

#include <stdio.h>
#include <string.h>

#include "lib/atomic_file.h"
#include "lib/version.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "analyze", cmd_analyze, "Top-down report of a turn or a session (json, text, html)" },
	{ "diff", cmd_diff, "what moved between two sessions, per point, with confidence intervals" },
	{ "export", cmd_export, "turns as a Chrome trace (Perfetto) or OTLP/JSON spans" },
	{ "fleet", cmd_fleet, "fleet-wide report or Prometheus metrics over many nodes' traces" },
	{ "demo", cmd_demo, "trace a sample agent against a local mock LLM and report (root)" },
	{ "top", cmd_top, "live view of the traced agents: turns, TTFT, tokens, cost, bottleneck" },
	{ "theory", cmd_theory, "print the Top-down model (domains, L2, L3, L4, rules)" },
	{ "rubric", cmd_rubric, "score a program on the seven-dimension performance rubric" },
	{ "validate", cmd_validate, "check TurnTrace files against the schema" },
	{ "gpu", cmd_gpu, "merge GPU records into turns; GPU time breakdown of a turn" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: xperf <command> [options]\n       xperf --version\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'xperf <command> --help' describes a command.\n");
}

int main(int argc, char **argv)
{
	xp_out_unlink_on_signals();
	if (argc < 2) {
		usage(stderr);
		return XP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return XP_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("xperf %s (TurnTrace schema 1.0)\n", XP_VERSION);
		return XP_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "xperf: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return XP_EXIT_USAGE;
}
