/* SPDX-License-Identifier: MIT */
/*
 * jtok.h - a bounded pull tokenizer for JSON that says where every value is.
 *
 * cJSON keeps no positions, builds a tree of the whole document (about five
 * times its size) and recurses on hostile nesting. sc_jtok_next() hands out
 * one value at a time instead, iteratively and in linear time, checking
 * strict RFC 8259 syntax, valid UTF-8 (no surrogates, no overlongs), escapes,
 * nesting depth and number length (63 bytes, cJSON's limit) as it goes. Each
 * event carries the value's line:col, its member key (decoded) and, for
 * strings and numbers, the value; a failure names its position, the JSON
 * pointer being parsed and the reason. The validator (vshape.c) pulls it,
 * and through it the one TurnTrace reader (core/read.c).
 *
 * Input comes whole (a buffer) or from a read function into a fixed window
 * that is refilled: a token is always scanned whole (the window grows only
 * for a token longer than itself), so memory does not grow with the input.
 */
#ifndef XPERF_SCHEMA_JTOK_H
#define XPERF_SCHEMA_JTOK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sc_jpos {
	uint32_t line, col; /* 1-based; col counts bytes */
};

enum sc_jtype {
	SC_J_OBJECT,  /* '{' opened; its members follow, then SC_J_END */
	SC_J_ARRAY,   /* '[' opened; its elements follow, then SC_J_END */
	SC_J_END,     /* the innermost open container closed */
	SC_J_STRING,
	SC_J_NUMBER,
	SC_J_TRUE,
	SC_J_FALSE,
	SC_J_NULL,
};

struct sc_jev {
	enum sc_jtype type;
	struct sc_jpos pos; /* the value's first byte (SC_J_END: the closing bracket) */
	int depth;          /* containers open around the value (0: the document) */
	const char *key;    /* an object's member: its key, decoded; NULL otherwise */
	const char *str;    /* SC_J_STRING: decoded, NUL-terminated */
	size_t len;         /* its length in bytes (a \u0000 is kept) */
	const char *lit;    /* SC_J_NUMBER: the literal as written (not NUL-terminated) */
	size_t litlen;
	int integer;        /* SC_J_NUMBER: the literal has no fraction and no exponent */
	double num;         /* SC_J_NUMBER: strtod of the literal (may be infinite) */
};

struct sc_jlevel;

/* Reads up to cap bytes into buf: the count, 0 at the end of input, -1 on failure. */
typedef ssize_t (*sc_jread_fn)(void *ctx, void *buf, size_t cap);

struct sc_jtok {
	const unsigned char *win, *p, *end; /* the bytes at hand, [p, end) not yet scanned */
	uint64_t base, line_off; /* input offsets of win[0] and of the current line */
	sc_jread_fn read;        /* NULL: the input is all in win */
	void *rctx;
	unsigned char *own;      /* the window when read is set */
	size_t wcap;
	int eof, io_failed;      /* io_failed: read returned -1 (err_msg says "read failed") */
	uint32_t line;
	int state, depth, max_depth;
	size_t values, max_values;
	struct sc_jlevel *lv; /* the open containers, outermost first */
	char *key, *str;      /* decoded key and string of the last event */
	size_t kcap, scap, slen;
	struct sc_jpos err;   /* failure position */
	char err_ptr[256];    /* JSON pointer of the value being parsed at failure */
	char err_msg[256];
};

/* Start on buf[0..len) (kept, not copied); -1 on ENOMEM. Always release with sc_jtok_free(). */
int sc_jtok_init(struct sc_jtok *t, const char *buf, size_t len, int max_depth,
		 size_t max_values);
/* Start on what read(ctx, ...) gives, through a window of `window` bytes (>= 1). */
int sc_jtok_init_read(struct sc_jtok *t, sc_jread_fn read, void *ctx, size_t window,
		      int max_depth, size_t max_values);
/*
 * The next value into *ev (its strings valid until the next call): 1; 0 once
 * the document ended with nothing but whitespace after it; -1 on a syntax
 * error, deeper nesting than max_depth, more than max_values values or
 * ENOMEM (t->err* filled; later calls return -1 again).
 */
int sc_jtok_next(struct sc_jtok *t, struct sc_jev *ev);
void sc_jtok_free(struct sc_jtok *t);

/*
 * Append "/" + token (escaped per RFC 6901: ~ -> ~0, / -> ~1) to the pointer
 * in ptr (capacity cap, always NUL-terminated; a token that does not fit is
 * cut and ends in "..."). `n` is the token length. Returns the new length.
 */
size_t sc_jptr_append(char *ptr, size_t cap, size_t len, const char *tok, size_t n);

#endif /* XPERF_SCHEMA_JTOK_H */
