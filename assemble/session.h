/* SPDX-License-Identifier: MIT */
/*
 * session.h - the turn assembler: takes decoded kernel events in time order
 * (process, scheduler, TLS plaintext, socket), finds the LLM exchanges,
 * groups them into turns and writes one TurnTrace file per turn as soon as
 * the turn is over (when the next turn's first exchange has completed),
 * the last one at xt_session_finish(), marked incomplete when it was cut.
 *
 * A turn holds exactly one answer the agent could use (2xx, not aborted):
 * error answers and their retries stay in the turn they delay; exchanges
 * that overlap one already in the turn are concurrent side requests.
 */
#ifndef XPERF_ASSEMBLE_SESSION_H
#define XPERF_ASSEMBLE_SESSION_H

#include "assemble/event.h"
#include "core/turn.h"
#include "proto/llm_conn.h"

struct xt_config {
	const char *out_dir;    /* trace directory (files go to out_dir/session_id/) */
	const char *session_id; /* [A-Za-z0-9._-]{1,128} */
	const char *agent_name; /* NULL: the agent's command name */
	struct pr_llm_conn_cfg llm; /* plaintext tier: path rules and host patterns */
	const char *const *cipher_hosts; /* ciphertext tier: fnmatch patterns of LLM hosts */
	int ciphertext;         /* 1: time exchanges from socket events (no plaintext) */
	size_t max_procs;       /* processes kept at most, 0: no bound (procs.h: xt_procs.max) */
	size_t max_sched_marks; /* scheduler transitions kept per thread, 0: no bound (sched.h) */
	int no_clock_anchor;    /* 1: files carry no clock_anchor (a replay: the events were
				 * recorded on another clock than this machine's now) */
	/*
	 * Late records (the binary's GPU merge, assemble/sink_turns.c): while
	 * hold() returns 1 built turns are kept in memory, and written at
	 * xt_session_finish; before_write() completes every turn before its
	 * file is written. Both may be NULL.
	 */
	int (*hold)(void *ctx);
	void (*before_write)(void *ctx, struct tt_turn *t);
	void *hook_ctx;
};

struct xt_session;

/* NULL on ENOMEM. cfg (and its strings) must outlive the session. */
struct xt_session *xt_session_new(const struct xt_config *cfg);
/*
 * One event; 0, or -1 when memory ran out (message on stderr). A turn file
 * that cannot be written (a full disk) is counted (xt_session_stats),
 * the first named on stderr, and the session goes on.
 */
int xt_session_event(struct xt_session *s, const struct xt_event *ev);
/* Kernel records lost so far (from the capture layer's drop counters). */
void xt_session_set_dropped(struct xt_session *s, uint64_t dropped);
/*
 * Tracing ended at end_ns: writes the turns not yet written. agent_exited:
 * the agent process ended (otherwise the last turn is cut: complete false).
 * 0, or -1 when a turn file could not be written, now or before.
 */
int xt_session_finish(struct xt_session *s, uint64_t end_ns, int agent_exited);
/* What a session has done so far (xt_session_stats). */
struct xt_session_stats {
	int turns;		/* assembled (written, or held for late records) */
	int exchanges;		/* LLM exchanges seen */
	int unwritten;		/* turns whose file could not be written */
	int unwritten_err;	/* the first's -errno */
	uint64_t procs_evicted;	/* exited processes forgotten at cfg->max_procs */
	uint64_t sched_evicted;	/* scheduler transitions forgotten at cfg->max_sched_marks */
	const char *dir;	/* the directory the turn files go to (out_dir/session_id) */
};
struct xt_session_stats xt_session_stats(const struct xt_session *s);
void xt_session_free(struct xt_session *s);

#endif /* XPERF_ASSEMBLE_SESSION_H */
