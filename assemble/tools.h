/* SPDX-License-Identifier: MIT */
/*
 * tools.h - which of an agent's child processes ran the tool calls its model
 * asked for. A tool call (from the plaintext of the answer) is matched to the
 * first child process tree, forked after its request went out and inside the
 * turn, where some process's command line (first or latest exec: a wrapper
 * that re-execs itself, bash exec'ing the command) holds the command the
 * call's arguments name. A call with no command, or none found, ran inside
 * the agent (an in-process tool). Trees no call claims are the agent's own
 * housekeeping (agent_subprocess). The next request's tool result says
 * whether the agent reported the call as failed.
 */
#ifndef XPERF_ASSEMBLE_TOOLS_H
#define XPERF_ASSEMBLE_TOOLS_H

#include "assemble/turn.h"

struct xt_tool {
	const struct pr_tool_call *call;     /* NULL: a child process no tool call claims */
	const struct xt_exchange *ex;         /* the answer that asked for the call */
	const struct xt_proc *proc;           /* root of the process tree that ran it; NULL: in-process */
	const struct pr_tool_result *result;  /* what the agent sent back; NULL: not seen */
};

struct xt_tools {
	struct xt_tool *t;
	size_t n, cap;
	int identity_known; /* some answer of the turn was read in plaintext */
};

/* Fills out from the turn; 0, or -1 on ENOMEM. */
int xt_tools_match(const struct xt_turn_in *in, struct xt_tools *out);
void xt_tools_free(struct xt_tools *t);
/* The command a tool call's arguments name (command, cmd, script; arrays joined), or 0. */
int xt_tool_command(const struct pr_tool_call *call, char *buf, size_t cap);

#endif /* XPERF_ASSEMBLE_TOOLS_H */
