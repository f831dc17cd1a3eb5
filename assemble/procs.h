/* SPDX-License-Identifier: MIT */
/*
 * procs.h - the traced process tree from fork/exec/exit events: each
 * process's parent, lifetime, last argv and exit status, and the tool calls
 * of an agent (its child process trees), each named from its argv.
 */
#ifndef XPERF_ASSEMBLE_PROCS_H
#define XPERF_ASSEMBLE_PROCS_H

#include <stdbool.h>

#include "assemble/event.h"

struct xt_proc {
	uint32_t pid, ppid;
	uint64_t fork_ns, exec_ns, exit_ns; /* 0 when not seen */
	int exited;
	uint32_t wait_status;
	uint64_t cpu_ns;
	char cmdline[512]; /* argv of its first exec joined by spaces (cut to fit) */
	char last_cmdline[512]; /* argv of its latest exec (a wrapper's re-exec, bash's exec of CMD) */
	char comm[64];     /* basename of argv[0] */
	char tool[64];     /* the tool's name: the command a shell -c runs, or argv[0] */
};

struct xt_procs {
	struct xt_proc *p;
	size_t n, cap;
	bool keep_bodies; /* --capture-payloads: a command line's -d/--data bodies are kept */
	/*
	 * Processes kept at most (0: no bound; the daemon's --max-processes). At
	 * the bound the earliest exited quarter is forgotten: their turns are
	 * written long since, as a rule; a tool call of one in a turn not yet
	 * written is lost, counted. Live processes are never forgotten (the
	 * kernel's traced set bounds them).
	 */
	size_t max;
	uint64_t evicted; /* exited processes forgotten at max */
};

void xt_procs_free(struct xt_procs *t);
/* Applies a fork (processes only), exec or exit event; 0, or -1 on ENOMEM. */
int xt_procs_event(struct xt_procs *t, const struct xt_event *ev);
struct xt_proc *xt_procs_find(const struct xt_procs *t, uint32_t pid);
/* 1 when pid is a descendant of (not equal to) ancestor. */
int xt_procs_descends(const struct xt_procs *t, uint32_t pid, uint32_t ancestor);
/* End of a process tree: the latest exit among root and its descendants; 0 if root lives. */
uint64_t xt_procs_tree_end(const struct xt_procs *t, uint32_t root);
/* Exit code (status >> 8) and signal (status & 0x7f). */
int xt_exit_code(uint32_t wait_status);
int xt_exit_signal(uint32_t wait_status);

#endif /* XPERF_ASSEMBLE_PROCS_H */
