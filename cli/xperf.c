/* SPDX-License-Identifier: MIT */
/* xperf.c - the `xperf` command: dispatches to one subcommand per module. */
#include "cli/commands.h"

#include <stdio.h>
#include <string.h>

#include "lib/args.h"
#include "lib/atomic_file.h"
#include "lib/version.h"

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

const char *argp_program_version = "xperf " XP_VERSION " (TurnTrace schema 1.0)";

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "analyze", cmd_analyze, "Top-down report of a turn or a session (json, text, html)" },
	{ "diff", cmd_diff, "what moved between two sessions, with confidence intervals" },
	{ "export", cmd_export, "turns as a Chrome trace (Perfetto) or OTLP/JSON spans" },
	{ "fleet", cmd_fleet, "fleet-wide report or Prometheus metrics over many nodes' traces" },
	{ "demo", cmd_demo, "trace a sample agent against a local mock LLM and report (root)" },
	{ "top", cmd_top, "live view of traced agents: turns, TTFT, tokens, cost, bottleneck" },
	{ "theory", cmd_theory, "print the Top-down model (domains, L2, L3, L4, rules)" },
	{ "rubric", cmd_rubric, "score a program on the seven-dimension performance rubric" },
	{ "validate", cmd_validate, "check TurnTrace files against the schema" },
	{ "gpu", cmd_gpu, "merge GPU records into turns; GPU time breakdown of a turn" },
};

int main(int argc, char **argv)
{
	const char *names[NCOMMANDS + 1] = { NULL };
	char doc[2048];
	size_t len = snprintf(doc, sizeof(doc), "Commands:\n");
	int k;

	for (size_t i = 0; i < NCOMMANDS; i++) {
		names[i] = commands[i].name;
		len += snprintf(doc + len, sizeof(doc) - len, "  %-10s %s\n", commands[i].name,
				commands[i].summary);
	}
	snprintf(doc + len, sizeof(doc) - len, "\v'xperf COMMAND --help' describes a command.");
	k = xp_args_command("xperf", doc, names, argc, argv);
	xp_out_unlink_on_signals();
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[k], commands[i].name))
			return commands[i].run(argc - k, argv + k);
	return XP_EXIT_USAGE;
}
