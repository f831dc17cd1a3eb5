/* SPDX-License-Identifier: MIT */
/*
 * locate_check.h - the self-check of located TLS functions (fail closed).
 *
 * Plaintext from a function found by analysis (xk_tls_data.located != 0)
 * is held back until, on the same connection and direction, it agrees with
 * the socket tier and parses as HTTP:
 *  - write: the first call's bytes start an HTTP/1.1 request line or the
 *    HTTP/2 preface, and the same thread sends at least the call's length
 *    plus a TLS record's overhead over TCP, nested in the call or within
 *    SEND_WINDOW after it (memory-BIO stacks such as Bun's encrypt first
 *    and send after);
 *  - read: the first call's bytes start an HTTP/1.1 status line or an
 *    HTTP/2 SETTINGS frame, the call is joined to a TCP socket, and that
 *    socket has received at least the plaintext so far plus a record's
 *    overhead.
 * A direction that passes releases what was held and passes from then on
 * (each new connection is checked again). The HTTP check blames the file
 * only on a connection opened (connect or accept seen) after the file's
 * probes were in place in that process: one joined
 * mid-stream (attach to a running agent) may be inside a body, so a call
 * that does not start HTTP there is dropped and the next call tries again;
 * a read not (yet) joined to a socket likewise, XPC_LC_UNJOINED_MAX times. Any failure distrusts
 * the whole located file: its held records are dropped, later ones too, and the failure is reported
 * once (file id, function, check, detail). Garbage is never delivered as plaintext; the socket tier
 * goes on as before.
 */
#ifndef XPERF_USERSPACE_LOCATE_CHECK_H
#define XPERF_USERSPACE_LOCATE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "bpf/xperf.h"

#define XPC_LC_SEND_WINDOW_NS (200ull * 1000 * 1000)
#define XPC_LC_TLS_OVERHEAD 17	/* a TLS record's header and AEAD tag, at least */
#define XPC_LC_HELD_MAX (64u << 20)	/* bytes held at most; beyond, dropped and counted */
/* Reads not joined to a socket (nested or the thread's last receive) before the file fails. */
#define XPC_LC_UNJOINED_MAX 3

enum xpc_lc_verdict { XPC_LC_PASS = 0, XPC_LC_DROP = 1, XPC_LC_HOLD = 2 };

/* A located file's standing, per id. */
enum xpc_lc_state { XPC_LC_UNCHECKED = 0, XPC_LC_TRUSTED = 1, XPC_LC_FAILED = 2 };

struct xpc_lc_hooks {
	/* A held record now passes: deliver it (in arrival order). */
	void (*release)(void *ctx, const struct xk_hdr *rec);
	/* File id failed: function ("SSL_write"/"SSL_read"), check, detail. Once per id. */
	void (*failed)(void *ctx, unsigned int id, const char *function, const char *check,
		       const char *detail);
	/*
	 * Since when (CLOCK_MONOTONIC ns) file id's probes cover process tgid;
	 * UINT64_MAX if unknown. A connection opened before is one xperf joined
	 * mid-stream, even if the socket tier saw its connect. NULL: always.
	 */
	uint64_t (*probed_since)(void *ctx, unsigned int id, uint32_t tgid);
	void *ctx;
};

struct xpc_lc_counts {
	uint64_t passed;	/* connection directions that passed */
	uint64_t withheld;	/* records never delivered (failed, or still held at the end) */
	uint64_t held_over;	/* records dropped because XPC_LC_HELD_MAX was reached */
};

struct xpc_locate_check;

struct xpc_locate_check *xpc_locate_check_new(const struct xpc_lc_hooks *hooks);
void xpc_locate_check_free(struct xpc_locate_check *lc);

/* Feed any record, in ring order; the verdict for it (XPC_LC_HOLD: copied). */
enum xpc_lc_verdict xpc_locate_check_record(struct xpc_locate_check *lc, const struct xk_hdr *rec);

/*
 * The run ends: a write still waiting for its ciphertext will not see it
 * (its process exited right after the call). Its file fails unless already
 * trusted (then only that write is dropped).
 */
void xpc_locate_check_finish(struct xpc_locate_check *lc);

/* State of located file id, and counts. */
enum xpc_lc_state xpc_locate_check_state(const struct xpc_locate_check *lc, unsigned int id);
void xpc_locate_check_counts(const struct xpc_locate_check *lc, struct xpc_lc_counts *out);

/* Whether data starts an HTTP/1.1 request or the HTTP/2 preface (write), or
 * an HTTP/1.1 status line or an HTTP/2 SETTINGS frame (read). */
bool xpc_lc_http_start(const uint8_t *data, size_t len, bool is_read);

#endif /* XPERF_USERSPACE_LOCATE_CHECK_H */
