/* SPDX-License-Identifier: MIT */
/*
 * internal.h - state shared by the SDK's files (not installed, not exported).
 *
 *   session.c  the one session: init/shutdown, the lock, the table of open turns
 *   turn.c     turns and spans: the public calls that record them
 *   marks.c    fused and waste marks, their kinds checked against theory
 *   stream.c   streamed tokens: ttft and streaming-gap marks, the typed token times
 *   probe.c    per-thread measurement: clocks and perf_event counters
 *   agent.c    who the agent process is: pid, comm, start time, container
 *   attrs.c    attributes: OpenTelemetry names and types
 *   privacy.c  credentials and content kept out of the files
 *   writer.c   the finished turn's core part completed: counters, exchange facts typed, categorized
 *
 * One mutex (session.c) guards the session and every turn; measurements are
 * taken outside it, so the lock is held only for bookkeeping.
 */
#ifndef XPERF_SDK_INTERNAL_H
#define XPERF_SDK_INTERNAL_H

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/turn.h"
#include "lib/counters.h"
#include "lib/grow.h"
#include "lib/json_int.h"
#include "lib/secrets.h"
#include "lib/utf8.h"
#include "sdk/xperf.h"
#include "theory/theory.h"

#define XP_STAGE_MAX 64       /* longest stage name */
#define XP_REASONS_MAX 32     /* distinct counter-unavailable reasons per session */
#define XP_NO_REASON 0xff

/* One reading at a span boundary, on the calling thread. */
struct sd_sample {
	pid_t tid;
	uint64_t mono_ns;
	uint64_t cpu_ns;
	uint8_t why[XP_CTR_COUNT]; /* interned reason of each counter not in ctr.mask */
	struct xp_counter_values ctr;
};

/* What the SDK keeps of a span besides the core's (the turn's tt->spans, same index). */
struct sd_span {
	unsigned open : 1, llm : 1, detached : 1;
	int open_children;                    /* spans inside it not left yet */
	uint64_t cpu_start;
	uint64_t ctr_mask;                    /* counters valid over the whole span */
	double ctr[XP_CTR_COUNT];             /* start values, then deltas */
	uint8_t why[XP_CTR_COUNT];            /* interned reasons of the others */
	uint64_t *tokens;                     /* xperf_llm_token arrival times */
	size_t ntokens, tokcap;
};

/* The innermost open span of one thread in a turn. */
struct sd_top {
	pid_t tid;
	int span;
};

/* A turn being recorded: the core's turn from its start, and what only the SDK keeps. */
struct sd_turn {
	struct tt_turn *tt;
	struct sd_span *spans; /* id = index + 1, as in tt->spans */
	size_t nspans, cap;
	struct sd_top *tops;
	size_t ntops, tcap;
};

/* What the writer needs to know about the session. */
struct sd_agent {
	char name[128];
	char model[128];
	char comm[32];
	char container_id[80];
	pid_t pid;
	uint64_t start_time_ns;
};

/* session.c */
void sd_lock(void);
void sd_unlock(void);
int sd_live(void);                   /* 1 between init and shutdown (recheck under the lock) */
unsigned sd_generation(void);        /* changes at every init */
unsigned sd_flags(void);
int sd_capture(void);                /* 1: keep prompt/completion text (XPERF_CAPTURE_CONTENT) */
struct sd_turn *sd_turn_get(int handle); /* under the lock; NULL when not open */
int sd_turn_add(struct sd_turn *t);      /* under the lock; the new handle or XP_ENOMEM */
void sd_turn_remove(struct sd_turn *t);  /* under the lock; takes it out of the table */
int sd_name_valid(const char *s, size_t max); /* [A-Za-z0-9._-]{1,max} */
int sd_fail(int err);                /* counts a misuse; returns err */
void sd_count_dropped(uint64_t n);
uint8_t sd_reason_intern(const char *why); /* takes the lock; XP_NO_REASON when full */
const char *sd_reason(uint8_t idx);        /* under the lock */
int sd_session_write(struct sd_turn *t);   /* writes and frees the turn; 0 or XP_EWRITE */

/* probe.c */
void sd_probe(struct sd_sample *s, int leaving);
uint64_t sd_now_ns(void);
void sd_probe_release(void);         /* close the calling thread's counters */
pid_t sd_tid(void);

/* agent.c */
void sd_agent_collect(struct sd_agent *ag, const char *name, const char *model);

/* marks.c: under the lock; takes counts and attrs on success (0), else an error */
int sd_mark_append(struct sd_turn *t, const char *kind, const char *l3, int span, uint64_t t_ns,
		   cJSON *counts, cJSON *attrs);

/* stream.c: under the lock, when an LLM span with recorded tokens is closed (its marks) */
void sd_stream_finish(struct sd_turn *t, int id);
/* stream.c: s's token times, TTFT and xperf.stream from sp's tokens, unless given; -1 on ENOMEM */
int sd_stream_facts(struct tt_span *s, const struct sd_span *sp);

/* privacy.c */
int sd_withheld(const char *key, int capture_content); /* 1: the key is never written */

/*
 * attrs.c: a new object of the attributes (OTel names when map); with counts, the integers
 * go to a new object there instead. 0, XP_EINVAL or XP_ENOMEM; on error nothing is built.
 */
int sd_attrs_build(cJSON **out, cJSON **counts, const struct xperf_attr *a, size_t n, int map);
void sd_attrs_join(cJSON **dst, cJSON *src); /* moves src's members into *dst */

/* writer.c: the turn as the core's, taken from t; NULL on ENOMEM */
struct tt_turn *sd_turn_core(struct sd_turn *t, const char *session_id,
			     const struct sd_agent *ag);

/* turn.c */
struct sd_top *sd_top_of(struct sd_turn *t, pid_t tid, int create); /* under the lock */
/* The open turn `handle` with the lock held; NULL (lock released) and *err set otherwise. */
struct sd_turn *sd_lock_turn(int handle, int *err);
void sd_turn_free(struct sd_turn *t);
void sd_turn_close(struct sd_turn *t, uint64_t now_ns, int complete);

#endif /* XPERF_SDK_INTERNAL_H */
