/* SPDX-License-Identifier: MIT */
/*
 * validate.h - the TurnTrace v1 validator (schema/README.md is the contract).
 *
 * One pass over the bytes: a bounded, iterative tokenizer (jtok.h) checks
 * them (size cap, UTF-8, JSON syntax, nesting cap) and hands out each value
 * with its line:col; the rules of turntrace.schema.json are checked on each
 * value as it comes (vshape.c), and the rules JSON Schema cannot express
 * (ordered times, spans inside the turn, unique ids, parents, stages and L3
 * ids known to theory, sched sums) once the document ended (vrules.c), over
 * the few facts they need. No tree of the document is built.
 * Every error names the file, the line:col of the offending value, its JSON
 * pointer (RFC 6901) and a one-line message. Nothing here prints or exits.
 */
#ifndef XPERF_SCHEMA_VALIDATE_H
#define XPERF_SCHEMA_VALIDATE_H

#include <stddef.h>

#define XP_VALIDATE_MAX_BYTES (64u << 20) /* larger files are rejected, unread */
#define XP_VALIDATE_MAX_DEPTH 64          /* deeper nesting is rejected */
#define XP_VALIDATE_MAX_VALUES (1u << 22) /* more JSON values are rejected (memory bound) */
#define XP_VALIDATE_MAX_ERRORS 100        /* reporting stops after this many per file */
#define XP_SCHED_TOLERANCE_NS 1000000     /* sched parts may exceed the span by this much */

struct sc_verror {
	const char *file;  /* as given by the caller ("<buffer>" when NULL) */
	int line, col;     /* 1-based; col counts bytes; 0:0 for I/O errors */
	char pointer[256]; /* JSON pointer of the offending value, "" for the root */
	char msg[256];     /* one line, no trailing newline */
};

/* Called once per error, in document order of discovery. */
typedef void (*sc_verror_fn)(const struct sc_verror *e, void *ctx);

/*
 * Validate `len` bytes of `buf` as one TurnTrace v1 file named `file` (used
 * only in error reports). `buf` need not be NUL-terminated. `cb` may be NULL.
 * Returns the number of errors (0 = valid), counting at most
 * XP_VALIDATE_MAX_ERRORS + 1 (the last one says reporting stopped).
 */
int sc_validate_buffer(const char *file, const char *buf, size_t len, sc_verror_fn cb, void *ctx);

/*
 * Validate the file at `path`. An I/O error (missing, unreadable, a
 * directory, over XP_VALIDATE_MAX_BYTES) is reported as one error at 0:0.
 */
int sc_validate_file(const char *path, sc_verror_fn cb, void *ctx);

/*
 * What a reader gets from the validator's single pass (core/read.c fills a
 * struct tt_turn from it): each value the schema names, with the slot that
 * says which field it is, while no error has been found. The free-form parts
 * (attributes, waste counts) come whole: every event inside
 * them, container ends included, carries the part's slot in `tree`.
 */
enum sc_slot {
	SC_NONE,
	SC_SESSION, SC_TURN_INDEX, SC_COMPLETE, SC_SOURCE, SC_START, SC_END,
	SC_ANCHOR_MONO, SC_ANCHOR_REAL, SC_ANCHOR_BOOT,
	SC_AGENT_NAME, SC_AGENT_MODEL, SC_AGENT_PID, SC_AGENT_START, SC_AGENT_COMM,
	SC_AGENT_CONTAINER,
	SC_SPAN, /* a span's object: its start and its end */
	SC_SPAN_ID, SC_SPAN_PARENT, SC_SPAN_STAGE, SC_SPAN_CUSTOM, SC_SPAN_DOMAIN,
	SC_SPAN_CATEGORY, SC_SPAN_START, SC_SPAN_END, SC_SPAN_TID,
	SC_SCHED, SC_SCHED_ON_CPU, SC_SCHED_RUNQ, SC_SCHED_BLOCKED,
	SC_COUNTERS, SC_CTR_VALUE, SC_CTR_WHY, /* map entries: the counter name is ev->key */
	SC_SPAN_ATTRS,                         /* tree */
	SC_FUSED, SC_WASTE,                    /* a mark's object */
	SC_MARK_KIND, SC_MARK_L3, SC_MARK_SPAN, SC_MARK_T,
	SC_MARK_COUNTS, SC_MARK_ATTRS,         /* trees */
	SC_GPU, SC_GPU_DROPPED, SC_GPU_SOURCE,
	SC_GPU_ACTIVITY, /* an activity's object */
	SC_GPU_KIND, SC_GPU_NAME, SC_GPU_START, SC_GPU_END, SC_GPU_DEVICE, SC_GPU_STREAM,
	SC_GPU_CORR, SC_GPU_BYTES,
	SC_DQ_TIER, SC_DQ_DROPPED, SC_DQ_TRUNCATED, SC_DQ_WARNING, SC_DQ_NON_LLM,
	SC_DQ_TOOL_IDENTITY,
	SC_TOKEN_TIMES, SC_TOKEN_TIME, SC_ATTR_TTFT_NS, /* inside attributes */
};

struct sc_jev;

struct sc_vval {
	enum sc_slot slot;     /* the field; SC_NONE for values the schema leaves unnamed */
	enum sc_slot tree;     /* the free-form part around it; SC_NONE outside */
	const struct sc_jev *ev; /* schema/jtok.h: type, position, key, string or number */
};

/* Returns 0, or -1 on ENOMEM (reported as an error at the value; no more values come). */
typedef int (*sc_vsink_fn)(void *ctx, const struct sc_vval *v);

struct sc_vsink {
	sc_vsink_fn fn;
	void *ctx;
};

/* sc_validate_buffer / sc_validate_file that also hand the values to sink (NULL: none). */
int sc_validate_buffer_into(const char *file, const char *buf, size_t len, sc_verror_fn cb,
			    void *ctx, const struct sc_vsink *sink);
int sc_validate_file_into(const char *path, sc_verror_fn cb, void *ctx,
			  const struct sc_vsink *sink);

/* The integer a number event spells: exact for integer literals that fit int64. */
long long sc_vint(const struct sc_jev *ev);

/*
 * Format `e` as "path:line:col: /json/pointer: message" into out (always
 * NUL-terminated; the root pointer is shown as "/"), or "path: message" for an
 * error of the file itself (line 0: cannot open, not a regular file, too big).
 * Returns `out`.
 */
char *sc_verror_format(const struct sc_verror *e, char *out, size_t outlen);

#endif /* XPERF_SCHEMA_VALIDATE_H */
