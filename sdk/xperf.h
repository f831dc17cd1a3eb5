/* SPDX-License-Identifier: MIT */
/*
 * xperf.h - the embedded xperf SDK: an agent marks the stages of its turns,
 * the SDK measures them and writes one TurnTrace v1 file per turn
 * (schema/README.md) to <trace dir>/<session id>/turn_NNN.json.
 *
 *	xperf_init(&(struct xperf_agent_info){ "my-agent", "claude-sonnet-4-6" }, NULL);
 *	int turn = xperf_start_turn();
 *	int s = xperf_enter(turn, "prompt_assembly", NULL);
 *	... build the prompt ...
 *	xperf_leave(turn, s);
 *	xperf_end_turn(turn);
 *	xperf_shutdown();
 *
 * Handles are small integers, never pointers: a stale handle is an error
 * code, not a crash. Every function returns a negative XP_E* code on
 * misuse and never aborts the host program. Every function is thread-safe.
 *
 * Threads: a span belongs to the thread that entered it and must be left by
 * that thread (XP_ETHREAD otherwise). A span's parent is the innermost span
 * still open on the same thread in the same turn, so several threads can
 * each keep their own nested spans inside one turn. Spans on one thread
 * are left innermost first (XP_EORDER otherwise). Work that is not tied to
 * one thread (asyncio tasks, callbacks) uses detached spans (xperf_enter_ex).
 *
 * Measured per span: CLOCK_MONOTONIC start and end (the clock eBPF uses, so
 * SDK and kernel traces line up), the thread's CPU time (the task clock,
 * or CLOCK_THREAD_CPUTIME_ID without counters) as sched.on_cpu_ns, and the thread's perf_event
 * counters (software always, hardware when the machine has a PMU; a counter
 * that cannot be read carries its reason in counters.unavailable).
 */
#ifndef XPERF_SDK_XPERF_H
#define XPERF_SDK_XPERF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes: every function returns one of these (< 0) on failure. */
#define XP_EINVAL   (-1)  /* a NULL or malformed argument (stage name, kind, key) */
#define XP_ENOINIT  (-2)  /* xperf_init has not been called, or xperf_shutdown has */
#define XP_EALREADY (-3)  /* xperf_init called twice without xperf_shutdown */
#define XP_ENOTURN  (-4)  /* no open turn with this handle (never started, or ended) */
#define XP_ENOSPAN  (-5)  /* no span with this id in the turn */
#define XP_ECLOSED  (-6)  /* the span was already left */
#define XP_ETHREAD  (-7)  /* the span is left by another thread than entered it */
#define XP_EORDER   (-8)  /* a span nested in it is still open */
#define XP_ELIMIT   (-9)  /* a per-turn limit is reached; the event is dropped and counted */
#define XP_ENOMEM   (-10) /* out of memory; the event is dropped and counted */
#define XP_EWRITE   (-11) /* the turn ended but its file could not be written (counted) */
#define XP_EKIND    (-12) /* unknown fused or waste mark kind */
#define XP_ENOTLLM  (-13) /* xperf_leave_llm or xperf_llm_token on a span that is not an LLM one */

/* Per-turn limits; beyond them events are dropped and counted in the file. */
#define XPERF_MAX_SPANS 65536
#define XPERF_MAX_MARKS 65536
#define XPERF_MAX_TOKENS 65536 /* per LLM span, xperf_llm_token */

/*
 * Attribute values. Keys and strings are copied; the caller keeps ownership.
 * A key is 1..128 bytes of printable UTF-8; a string value that is not valid
 * UTF-8 is kept with U+FFFD in place of each invalid byte.
 */
enum xperf_attr_type {
	XP_ATTR_STR,
	XP_ATTR_INT,
	XP_ATTR_DOUBLE,
	XP_ATTR_BOOL,
	XP_ATTR_STR_ARRAY,
	XP_ATTR_INT_ARRAY,
};

struct xperf_attr {
	const char *key;
	enum xperf_attr_type type;
	union {
		const char *s;
		int64_t i;
		double d;
		int b;
		struct {
			const char *const *v;
			size_t n;
		} strs;
		struct {
			const int64_t *v;
			size_t n;
		} ints;
	} u;
};

#define XP_STR(k, v)  ((struct xperf_attr){ .key = (k), .type = XP_ATTR_STR, .u.s = (v) })
#define XP_INT(k, v)  ((struct xperf_attr){ .key = (k), .type = XP_ATTR_INT, .u.i = (v) })
#define XP_DBL(k, v)  ((struct xperf_attr){ .key = (k), .type = XP_ATTR_DOUBLE, .u.d = (v) })
#define XP_BOOL(k, v) ((struct xperf_attr){ .key = (k), .type = XP_ATTR_BOOL, .u.b = (v) })
#define XP_NATTR(a)   (sizeof(a) / sizeof((a)[0]))

struct xperf_agent_info {
	const char *name;  /* required: the agent's name, 1..127 bytes of UTF-8 */
	const char *model; /* optional: its default model, up to 127 bytes of UTF-8 */
};

/* Bits of xperf_options.flags. */
#define XPERF_NO_COUNTERS     (1u << 0) /* skip perf_event counters (clocks only) */
#define XPERF_CAPTURE_CONTENT (1u << 1) /* keep prompt/completion text attributes */
#define XPERF_NO_HW_COUNTERS  (1u << 2) /* software counters only, even with a PMU */

struct xperf_options {
	/*
	 * Trace directory; NULL: $XPERF_TRACE_DIR, else ".xperf/traces". A
	 * relative one is taken from the working directory at xperf_init.
	 */
	const char *trace_dir;
	/* Session id ([A-Za-z0-9._-]{1,128}); NULL: $XPERF_SESSION_ID, else generated. */
	const char *session_id;
	unsigned flags; /* XPERF_* bits above */
};

struct xperf_stats {
	uint64_t turns_written;  /* files written */
	uint64_t write_failures; /* turns whose file could not be written */
	uint64_t dropped_events; /* spans and marks dropped (limits, memory) */
	uint64_t misuse;         /* calls that returned an XP_E* code */
};

/*
 * Start the session. `agent->name` is required; `opts` may be NULL. The trace
 * directory is created (mode 0700) when the first turn is written, not here.
 * The first init registers an atexit handler: at exit(), a live session is
 * shut down (open turns written with complete=false). Signals are the host's
 * business: call xperf_shutdown from your own termination path. A child
 * created by fork() has no session (XP_ENOINIT) until it calls xperf_init:
 * it never writes the parent's turns or into the parent's session directory.
 * Returns 0, XP_EINVAL (NULL agent or name, bad session id), XP_EALREADY or
 * XP_ENOMEM.
 */
int xperf_init(const struct xperf_agent_info *agent, const struct xperf_options *opts);

/*
 * End the session: open turns are closed now, written with complete=false,
 * and their handles become invalid. Later calls return XP_ENOINIT until the
 * next xperf_init. Must not race with calls on other threads. Returns 0,
 * XP_ENOINIT, or XP_EWRITE when an open turn's file could not be written.
 */
int xperf_shutdown(void);

/*
 * Start a turn now. Returns its handle (>= 1, also its turn_index in the
 * file), or XP_ENOINIT or XP_ENOMEM. Several turns may be open at once.
 */
int xperf_start_turn(void);

/*
 * End the turn now and write its file (atomically, mode 0600). Spans still
 * open are closed at this instant and listed in data_quality.warnings. The
 * handle is invalid afterwards (XP_ENOTURN). Returns 0, XP_ENOINIT,
 * XP_ENOTURN, or XP_EWRITE: the turn is ended and counted in
 * xperf_stats.write_failures, the first failure is reported once on stderr.
 */
int xperf_end_turn(int turn);

/*
 * Enter a span of stage `stage` (a stage of theory's stage map; any other
 * name [A-Za-z0-9._-]{1,64} is a custom stage, charged to the compute domain
 * with a data-quality warning). `tool_name` may be NULL; when given it is
 * recorded as the tool.name attribute. Returns the span id (>= 1), or
 * XP_ENOINIT, XP_ENOTURN, XP_EINVAL, XP_ELIMIT or XP_ENOMEM.
 */
int xperf_enter(int turn, const char *stage, const char *tool_name);

/* What a span is, for xperf_enter_ex. */
struct xperf_span_opts {
	const char *stage;     /* required, as for xperf_enter */
	const char *tool_name; /* optional: the tool.name attribute */
	int llm;               /* 1: an LLM span (stage NULL: "llm_inference") */
	/*
	 * 1: a detached span, not tied to the calling thread: any thread may
	 * leave it, in any order, for work that hops between threads or
	 * interleaves on one (asyncio tasks, callbacks). Only its wall time is
	 * measured (CPU time and counters are per thread); a compute one is
	 * charged as supply.
	 */
	int detached;
	int parent; /* detached only: an open span of the turn, or 0 for none */
	const struct xperf_attr *attrs; /* as for xperf_enter_llm */
	size_t nattrs;
};

/*
 * Enter a span described by `o` (xperf_enter and xperf_enter_llm are
 * shorthands). A span cannot be left while a span inside it is open
 * (XP_EORDER). Returns the span id, or the codes of xperf_enter, or
 * XP_ENOSPAN / XP_ECLOSED for a bad `parent`, XP_EINVAL for a parent given
 * to a span that is not detached.
 */
int xperf_enter_ex(int turn, const struct xperf_span_opts *o);

/*
 * Leave span `span` on the thread that entered it (any thread for a
 * detached span). Returns 0, or XP_ENOINIT, XP_ENOTURN, XP_ENOSPAN,
 * XP_ECLOSED, XP_ETHREAD or XP_EORDER (a span inside it is still open);
 * nothing is changed on error: the span stays open.
 */
int xperf_leave(int turn, int span);

/*
 * Enter an LLM span: `stage` NULL means "llm_inference". Attributes use
 * OpenTelemetry GenAI names, or the seed's short keys which are mapped:
 * system/provider -> gen_ai.provider.name, request_model/model ->
 * gen_ai.request.model, input_tokens -> gen_ai.usage.input_tokens, ...
 * (sdk/README.md has the table). Returns as xperf_enter.
 */
int xperf_enter_llm(int turn, const char *stage, const struct xperf_attr *attrs, size_t n);

/*
 * Leave an LLM span, adding attributes (output_tokens, finish_reason, ...).
 * Returns as xperf_leave, or XP_ENOTLLM, or XP_EINVAL for a bad attribute
 * (then the span stays open).
 */
int xperf_leave_llm(int turn, int span, const struct xperf_attr *attrs, size_t n);

/*
 * A token (or chunk) of a streamed answer arrived now, for the open LLM span
 * `span` of this thread. When the span ends, the arrival times become
 * xperf.token_times_ns, the first one the span's xperf.ttft_ns and
 * gen_ai.server.time_to_first_token (time since the span began: enter it when
 * the request is sent), a fused "ttft" mark at the first token (do not also
 * mark ttft by hand), and a fused "streaming_gap" mark (with gap_ns) at the
 * end of each gap longer than the theory's streaming-gap rule. Values the
 * caller gives explicitly win. Returns 0, or XP_ENOINIT, XP_ENOTURN,
 * XP_ENOSPAN, XP_ECLOSED, XP_ETHREAD, XP_ENOTLLM, XP_ELIMIT or XP_ENOMEM.
 */
int xperf_llm_token(int turn, int span);

/*
 * Add attributes to a span, open or left (e.g. process.exit.code after a
 * tool ran). Same key mapping as xperf_enter_llm; a key set twice keeps the
 * last value. Returns 0, XP_ENOINIT, XP_ENOTURN, XP_ENOSPAN or XP_EINVAL.
 */
int xperf_span_set(int turn, int span, const struct xperf_attr *attrs, size_t n);

/*
 * Mark a fused-domain instant now: kind "ttft", "streaming_gap",
 * "prompt_transfer" or "response_transfer", attached to the innermost span
 * open on this thread (or none). A ttft mark without a ttft_ns attribute gets
 * one: now minus the start of that span (or of the turn). Returns 0, or
 * XP_ENOINIT, XP_ENOTURN, XP_EINVAL, XP_EKIND, XP_ELIMIT or XP_ENOMEM.
 */
int xperf_mark_fused(int turn, const char *kind, const struct xperf_attr *attrs, size_t n);

/*
 * Mark waste now: kind "failed_tool_call", "retry", "llm_error",
 * "truncated_output", "aborted_stream", "repeated_tool_call" or
 * "context_overflow", charged to the theory's L3 point of that kind. Integer
 * attributes become the mark's counts ({"failed_calls": 1}), others its
 * attributes. The innermost span open on this thread becomes Waste Bound.
 * Returns as xperf_mark_fused.
 */
int xperf_mark_waste(int turn, const char *kind, const struct xperf_attr *attrs, size_t n);

/* Copy the session's statistics. Returns 0, XP_EINVAL or XP_ENOINIT. */
int xperf_stats(struct xperf_stats *out);

/*
 * Write the session directory (<trace dir>/<session id>) into buf. Returns
 * its length, XP_ENOINIT, or XP_EINVAL (NULL buf, or len too small).
 */
int xperf_session_dir(char *buf, size_t len);

/* A static one-line description of an error code ("span left on another thread"). */
const char *xperf_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* XPERF_SDK_XPERF_H */
