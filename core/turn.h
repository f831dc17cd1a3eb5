/* SPDX-License-Identifier: MIT */
/*
 * turn.h - TurnTrace v1 in memory: the one model every writer fills and
 * every reader gets (core/README.md).
 *
 * Writers (the turn assembler, the SDK, the GPU merge) build a struct
 * tt_turn with tt_turn_new / tt_span_add / tt_mark_add, call
 * tt_turn_categorize once (theory's rules: waste binding, then each span's
 * domain and category) and store it with tt_turn_write (write.c). Readers
 * get the same struct from tt_turn_load (read.c), which validates first.
 * Integers are exact 64-bit values everywhere; attributes stay the free-form
 * OpenTelemetry objects they are in the file (cJSON, owned by the turn).
 */
#ifndef XPERF_CORE_TURN_H
#define XPERF_CORE_TURN_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "lib/clock_anchor.h"
#include "theory/theory.h"

#define TT_COUNTERS_MAX 16 /* >= th_counter_name_count (checked by core_test) */

/*
 * The numbers of a span's exchange with the outside that readers use, by
 * index: a model call's usage, TTFT, HTTP status and response size, a
 * process's exit code. tt_exchange_num_names[] holds their TurnTrace
 * attribute names (theory's work_attr names one of them).
 */
enum tt_ex_num {
	TT_EX_INPUT_TOKENS,        /* gen_ai.usage.input_tokens */
	TT_EX_OUTPUT_TOKENS,       /* gen_ai.usage.output_tokens */
	TT_EX_CACHE_READ_TOKENS,   /* gen_ai.usage.cache_read.input_tokens */
	TT_EX_TTFT_NS,             /* xperf.ttft_ns */
	TT_EX_STATUS,              /* http.response.status_code */
	TT_EX_EXIT_CODE,           /* process.exit.code */
	TT_EX_RESPONSE_BYTES,      /* http.response.body.size */
	TT_EX_CACHE_WRITE_TOKENS,  /* gen_ai.usage.cache_creation.input_tokens */
	TT_EX_REASONING_TOKENS,    /* gen_ai.usage.reasoning.output_tokens */
	TT_EX_NUM_COUNT
};
extern const char *const tt_exchange_num_names[TT_EX_NUM_COUNT];
#define TT_TOKEN_TIMES_ATTR "xperf.token_times_ns"
/*
 * The strings of a span's exchange: who answered (provider, models) and which
 * tool ran or was asked for. tt_exchange_str_names[] holds their attribute names.
 */
enum tt_ex_str {
	TT_EX_PROVIDER,       /* gen_ai.provider.name */
	TT_EX_REQUEST_MODEL,  /* gen_ai.request.model */
	TT_EX_RESPONSE_MODEL, /* gen_ai.response.model */
	TT_EX_TOOL,           /* tool.name: the tool the span ran */
	TT_EX_TOOL_CALL,      /* gen_ai.tool.name: the tool the model asked for */
	TT_EX_TOOL_CALL_ID,   /* gen_ai.tool.call.id */
	TT_EX_STR_COUNT
};
extern const char *const tt_exchange_str_names[TT_EX_STR_COUNT];
#define TT_FINISH_ATTR "gen_ai.response.finish_reasons"
#define TT_TTFT_S_ATTR "gen_ai.server.time_to_first_token" /* xperf.ttft_ns in seconds */

/*
 * The order every writer emits a span's attributes in (write.c): these names
 * first, typed or free-form, then the other attributes in their own order.
 */
extern const char *const tt_exchange_order[];
extern const size_t tt_exchange_order_count;

/*
 * A span's exchange, typed (exchange.c): what the analyzer and the exporters
 * read instead of looking attributes up by name. Writers (the assembler, the
 * SDK) fill it; the reader fills it from the span's attributes. The writer
 * emits a fact unless the attributes already hold it (a turn read back).
 * Strings, the finish reasons and the token times are owned (tt_exchange_free).
 */
struct tt_exchange {
	double num[TT_EX_NUM_COUNT]; /* finite, well inside the int64 range */
	uint32_t have;               /* bit i: num[i] given */
	char *str[TT_EX_STR_COUNT];  /* NULL: not given */
	char **finish;               /* gen_ai.response.finish_reasons */
	size_t nfinish;
	int finish_given;            /* 1: the finish reasons are given (maybe none) */
	int finish_length;           /* a finish reason says the answer was cut (length, max_tokens) */
	uint64_t *token_ns;          /* xperf.token_times_ns (the valid ones); NULL */
	size_t ntokens;
	int token_times;             /* 1: xperf.token_times_ns given (maybe empty) */
};

/* A span's counters object, by index in theory's counter names. */
struct tt_counters {
	uint64_t val[TT_COUNTERS_MAX];
	uint32_t have, unavail;         /* bit i: val[i] measured / listed unavailable */
	char *why[TT_COUNTERS_MAX];     /* reason of each unavailable counter */
};

/* Which scheduler values a span carries (bits of tt_span.sched). */
enum { TT_SCHED_ON_CPU = 1, TT_SCHED_RUNQ = 2, TT_SCHED_BLOCKED = 4, TT_SCHED_ALL = 7 };

struct tt_span {
	int64_t id;      /* >= 1, unique in the turn */
	int64_t parent;  /* 0: none */
	char *stage;
	const struct th_stage *st; /* theory's stage; NULL: custom stage */
	enum th_domain domain;
	enum th_category category;
	uint64_t start_ns, end_ns;
	int64_t tid;     /* 0: not known */
	unsigned sched;  /* TT_SCHED_* present */
	uint64_t on_cpu_ns, runq_ns, blocked_ns;
	struct tt_counters *ctr; /* NULL: no counters object (most spans; out of line: 264 bytes) */
	cJSON *attrs;    /* object; never NULL once added */
	struct tt_exchange ex; /* filled by the writers, or from attrs by the reader */
	/* tt_turn_index, tt_turn_bind_waste: */
	int parent_ix;   /* index of the parent in turn->spans, -1: none */
	int depth;       /* 0 for top-level spans */
	const char *waste_l3; /* L3 of the first waste mark bound to this very span */
};

/* A fused mark (l3 NULL) or a waste mark. */
struct tt_mark {
	char *kind;
	const char *l3;  /* waste marks: theory's L3 id */
	int64_t span;    /* 0: none */
	uint64_t t_ns;
	cJSON *counts;   /* waste marks: object of integers, may be NULL */
	cJSON *attrs;    /* object, may be NULL */
	int span_ix;     /* tt_turn_bind_waste: the span it binds to, -1: none */
};

struct tt_agent {
	char *name, *model, *comm; /* model, comm: NULL when unknown */
	char *container_id;        /* NULL: written as null (SDK) or left out (eBPF) */
	int container_known;       /* 1: the field is written (null when container_id NULL) */
	int64_t pid;
	uint64_t start_time_ns;    /* 0: unknown */
};

struct tt_quality {
	char tier[16];             /* "plaintext", "ciphertext", "sdk" */
	uint64_t dropped_events, truncated_payloads;
	int has_non_llm_requests;  /* the assembler counts them; the SDK cannot */
	uint64_t non_llm_requests; /* requests to LLM hosts that were no model call */
	char tool_identity[8];     /* "model", "unknown", "" (not said) */
	char **warnings;
	size_t nwarnings, wcap;
};

struct tt_turn {
	char *session_id;
	int64_t index;
	int complete;
	char source[8];            /* "ebpf" or "sdk" */
	uint64_t start_ns, end_ns;
	int has_anchor;            /* 0: the file carries no clock_anchor (a replay) */
	struct xp_clock_anchor anchor; /* wall clock at a CLOCK_MONOTONIC instant, boot id */
	struct tt_agent agent;
	struct tt_span *spans;     /* in the order added (or read) */
	size_t nspans, scap;
	struct tt_mark *fused, *waste;
	size_t nfused, fcap, nwaste, wcap;
	struct tt_quality quality;
	struct tt_gpu *gpu;        /* the `gpu` section; NULL: none */
	struct tt_id_ix *ids;      /* span ids sorted (tt_turn_index), NULL before */
};

struct tt_id_ix {
	int64_t id;
	int ix;
};

/* Which optional members a GPU activity has (bits of tt_gpu_act.have). */
enum {
	TT_GPU_NAME = 1, TT_GPU_DEVICE = 2, TT_GPU_STREAM = 4, TT_GPU_CORR = 8, TT_GPU_BYTES = 16,
	TT_GPU_ALL = 31
};

/* One activity of the turn's `gpu` section (schema/README.md). */
struct tt_gpu_act {
	enum th_gpu_kind kind;
	unsigned have;             /* TT_GPU_* members given (a merged activity has all) */
	char *name;                /* NULL: none */
	uint64_t start_ns, end_ns;
	uint64_t device, stream, correlation_id, bytes; /* 0 when absent */
};

/* The `gpu` section: filled by the GPU merge or the reader, written by the writer. */
struct tt_gpu {
	struct tt_gpu_act *acts;   /* in the order merged (or read) */
	size_t nacts, cap;
	uint64_t dropped;          /* dropped_records */
	char source[8];            /* "cupti" or "uprobe" */
};

/* gpu.c: a new empty section; NULL on ENOMEM. */
struct tt_gpu *tt_gpu_new(const char *source, uint64_t dropped);
/* Adds an activity with no optional member; NULL on ENOMEM. Pointers move on the next add. */
struct tt_gpu_act *tt_gpu_add(struct tt_gpu *g, enum th_gpu_kind kind, uint64_t start_ns,
			      uint64_t end_ns);
void tt_gpu_free(struct tt_gpu *g);

/* A new empty turn (source "ebpf" or "sdk"); NULL on ENOMEM. */
struct tt_turn *tt_turn_new(const char *session_id, int64_t index, const char *source,
			    const char *tier);
void tt_turn_free(struct tt_turn *t);

/* Sets a string member (copied; NULL clears). 0 or -1 on ENOMEM. */
int tt_str_set(char **dst, const char *src);

/*
 * Adds a span with the next id (number of spans + 1) and returns it, or NULL
 * on ENOMEM. parent: 0 for none. The span's attrs object is empty.
 * Pointers into turn->spans move when the next span is added.
 */
struct tt_span *tt_span_add(struct tt_turn *t, int64_t parent, const char *stage,
			    uint64_t start_ns, uint64_t end_ns, int64_t tid);
/* s's counters object, made empty when it has none; NULL on ENOMEM. */
struct tt_counters *tt_span_counters(struct tt_span *s);
/* Adds a fused (l3 NULL) or waste mark, empty attrs; NULL on ENOMEM. */
struct tt_mark *tt_mark_add(struct tt_turn *t, const char *kind, const char *l3, int64_t span,
			    uint64_t t_ns);
/* Adds a data-quality warning once (a repeat is ignored); 0 or -1 on ENOMEM. */
int tt_warn(struct tt_turn *t, const char *warning);

/* Index of span `id` in t->spans, -1 when absent (binary search after tt_turn_index). */
int tt_span_index(const struct tt_turn *t, int64_t id);
/* Builds the id index, resolves parents and depths; -1 on unknown parents, cycles,
 * duplicate ids or ENOMEM. */
int tt_turn_index(struct tt_turn *t);

/* Fills s->ex from s->attrs (a value of the wrong type is left out); -1 on ENOMEM. */
int tt_exchange_read(struct tt_span *s);
/*
 * Types the exchange facts of s->attrs into s->ex and removes them from the
 * attributes, so that the writer places them (an integer above 2^53 stays an
 * attribute, exact). What a writer that collects attributes (the SDK) calls.
 */
int tt_exchange_take(struct tt_span *s);
void tt_exchange_free(struct tt_exchange *ex); /* empties it */
/*
 * Whether the exchange failed: an HTTP status >= 400, else a non-zero exit
 * code. The one rule the analyzer (a failed span is not effective work) and
 * the exporters (an error status) share. why (may be NULL) gets the reason.
 */
int tt_ex_failed(const struct tt_exchange *ex, char *why, size_t len);
/* Whether s->ex has num[i]. */
static inline int tt_ex_has(const struct tt_exchange *ex, enum tt_ex_num i)
{
	return (ex->have >> i) & 1u;
}
static inline void tt_ex_set(struct tt_exchange *ex, enum tt_ex_num i, double v)
{
	ex->num[i] = v;
	ex->have |= 1u << i;
}
/* The model that answered: the response's when it names one, else the request's; NULL. */
static inline const char *tt_ex_model(const struct tt_exchange *ex)
{
	const char *m = ex->str[TT_EX_RESPONSE_MODEL];

	return m && m[0] ? m : ex->str[TT_EX_REQUEST_MODEL];
}
/* Sets string i to a copy of v; -1 on ENOMEM. */
int tt_ex_set_str(struct tt_exchange *ex, enum tt_ex_str i, const char *v);
/* Sets the finish reasons to a copy of r[0..n) (and finish_length); -1 on ENOMEM. */
int tt_ex_set_finish(struct tt_exchange *ex, const char *const *r, size_t n);
/* Sets the token times to a copy of t[0..n); -1 on ENOMEM. */
int tt_ex_set_tokens(struct tt_exchange *ex, const uint64_t *t, size_t n);

/*
 * rules.c - theory's rules over a whole turn, the one place they are applied.
 * Waste binding (theory/README.md, "Waste"): a waste mark binds to the span it
 * names; a span is wasted when a mark binds to it or to an ancestor. A mark
 * with no span counts its event and charges no time. Needs tt_turn_index.
 */
void tt_turn_bind_waste(struct tt_turn *t);
/* Indexes, binds waste and sets every span's domain and category (th_category_of). */
int tt_turn_categorize(struct tt_turn *t);

#endif /* XPERF_CORE_TURN_H */
