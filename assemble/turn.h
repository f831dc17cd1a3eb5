/* SPDX-License-Identifier: MIT */
/*
 * turn.h - one agent turn, from its LLM exchanges, the agent's child
 * processes and the scheduler timelines, as a TurnTrace document. The turn
 * model (docs/turn-model.md): turn k runs from the moment the agent has what
 * it needs to build prompt k (the end of turn k-1's last tool call or
 * response parsing) to that moment for prompt k+1.
 */
#ifndef XPERF_ASSEMBLE_TURN_H
#define XPERF_ASSEMBLE_TURN_H

#include "assemble/doc.h"
#include "assemble/procs.h"
#include "proto/llm.h"

/* One LLM exchange as the assembler keeps it (owns call.token_ns). */
struct xt_exchange {
	uint32_t tgid, tid;
	struct pr_llm_call call;
	char host[256];
	char path[256];
	char retry_after[32];
	uint64_t req_start_ns, req_end_ns, resp_start_ns, resp_end_ns;
	uint64_t req_bytes, resp_bytes;
	int aborted, truncated, streaming, answered;
	int cipher;  /* timed from socket events (ciphertext tier) */
	int covered; /* ciphertext: its socket moved data inside SSL calls */
	int probe;   /* ciphertext: by its sizes, a request that was no model call (cipher.h) */
	uint32_t control_records; /* ciphertext: small sends taken for control frames (cipher.h) */
	char *req_text; /* --capture-payloads only: the request body; call.text: the answer */
	/* the same exchange as the ciphertext tier timed it (0: not seen) */
	uint64_t shadow_req_start_ns, shadow_resp_end_ns, shadow_ttft_ns;
	/* the first request on a connection whose connect was seen: its TCP + TLS set-up, from
	 * the connect to the handshake's end (else the request); 0: a reused or older connection */
	uint64_t setup_start_ns, setup_end_ns;
};

/* Command lines run so far in the session (repeated tool calls). */
struct xt_cmdset {
	char **cmd;
	size_t n, cap;
};

struct xt_turn_in {
	const char *session_id;
	const char *tier;
	int index;
	uint64_t start_ns; /* S: the end of the previous turn */
	uint64_t limit_ns; /* the first request of the next turn, or the end of tracing */
	int last;          /* no next turn: tracing ended */
	int agent_exited;
	struct xt_exchange **ex; /* sorted by req_start_ns */
	size_t n_ex;
	const struct xt_exchange *next; /* the agent's next request (its tool results), or NULL */
	int capture_payloads;     /* opt-in: tool call arguments are written */
	uint64_t non_llm_requests; /* requests to LLM hosts in the turn that were no model call */
	struct xt_agent_info agent;
	const struct xt_procs *procs;
	const struct xt_sched *sched;
	struct xt_cmdset *seen;
	uint64_t dropped, truncated;
	const struct xp_clock_anchor *anchor; /* NULL: the file carries none */
};

/* 1 when p is one of the agent's child processes forked inside the turn. */
int xt_turn_child(const struct xt_turn_in *in, const struct xt_proc *p);
/* 1 when the exchange gave the agent an answer it could use (2xx, not cut off). */
int xt_exchange_ok(const struct xt_exchange *e);
void xt_exchange_free(struct xt_exchange *e);
/* Builds the turn; *end_ns gets its end (the next turn's start). NULL on ENOMEM. */
struct tt_turn *xt_turn_build(const struct xt_turn_in *in, uint64_t *end_ns);
void xt_cmdset_free(struct xt_cmdset *s);

#endif /* XPERF_ASSEMBLE_TURN_H */
