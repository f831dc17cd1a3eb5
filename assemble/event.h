/* SPDX-License-Identifier: MIT */
/*
 * event.h - the turn assembler's input: one decoded kernel event, in a plain
 * struct that mirrors the capture ABI (bpf/xperf.h and the per-object
 * headers) without depending on it, so the assembler is tested from recorded
 * event sequences and fed by the capture layer through a thin adapter.
 * Times are CLOCK_MONOTONIC ns. Pointers are valid during the call only.
 */
#ifndef XPERF_ASSEMBLE_EVENT_H
#define XPERF_ASSEMBLE_EVENT_H

#include <stddef.h>
#include <stdint.h>

enum xt_kind {
	XT_FORK,      /* tgid/tid forked child (a process, or a thread if thread) */
	XT_EXEC,      /* tgid exec'd argv */
	XT_EXIT,      /* the last thread of tgid exited */
	XT_SCHED,     /* thread tid entered state at ts (and was in prev_state for prev_ns) */
	XT_TLS,       /* plaintext of one SSL call (or a chunk of it) */
	XT_TLS_CLOSE, /* SSL object freed / connection closed */
	XT_SOCK,      /* one socket send/recv: ciphertext tier */
	XT_SOCK_OPEN, /* connect/accept; host from the SNI when known */
	XT_SOCK_CLOSE,
};

enum xt_state { XT_ST_UNKNOWN, XT_ST_ONCPU, XT_ST_RUNQ, XT_ST_BLOCKED };
enum xt_io_dir { XT_WRITE, XT_READ }; /* as the traced process sees it */

struct xt_event {
	enum xt_kind kind;
	uint64_t ts_ns;
	uint32_t tgid, tid;
	/* XT_FORK */
	uint32_t child;
	int is_thread;
	/* XT_EXEC: NUL-separated arguments */
	const char *argv;
	size_t argv_len;
	/* XT_EXIT */
	uint32_t wait_status; /* (code << 8) | signal */
	uint64_t cpu_ns;
	/* XT_SCHED */
	enum xt_state state, prev_state;
	uint64_t prev_ns;
	/* XT_TLS / XT_SOCK* */
	uint64_t conn;      /* SSL* or socket cookie: unique within tgid */
	enum xt_io_dir dir;
	uint64_t pos;       /* TLS: offset of data in this direction's stream */
	uint64_t call_ns;   /* when the call began (XT_SOCK_OPEN: the connect; 0: not seen) */
	const char *data;   /* TLS plaintext (len bytes) */
	uint32_t len;       /* bytes in data (TLS) or bytes moved (socket) */
	uint32_t lost;      /* TLS: bytes of the call after data that the payload cap cut */
	const char *host;   /* XT_SOCK_OPEN: SNI or peer address text */
	int in_tls;         /* XT_SOCK: made inside an SSL call (the plaintext tier sees it) */
};

#endif /* XPERF_ASSEMBLE_EVENT_H */
