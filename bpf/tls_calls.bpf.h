/* SPDX-License-Identifier: MIT */
/*
 * tls_calls.bpf.h - the `tls_calls` map (BPF only): the SSL call each
 * thread of a traced process is inside. tls.bpf.c writes it at SSL_*
 * entry and reads it at return; sock.bpf.c, loaded with the same map
 * (bpf_map__reuse_fd), writes the socket cookie of the tcp_sendmsg /
 * tcp_recvmsg nested inside the call: the SSL* -> socket join, with no
 * OpenSSL struct offsets (they change between versions and builds).
 * LRU: a thread killed inside an SSL call leaves an entry that ages out.
 * `tls_last_recv` is shared the same way (see tls.h). Both objects also
 * share the batched ring output below.
 */
#ifndef XPERF_BPF_TLS_CALLS_BPF_H
#define XPERF_BPF_TLS_CALLS_BPF_H

#include "tls.h"

#define XP_TLS_MAX_CALLS 16384	/* threads inside an SSL call at once */

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, XP_TLS_MAX_CALLS);
	__type(key, __u32);
	__type(value, struct xp_tls_call);
} tls_calls SEC(".maps");

/* The last TCP receive per thread (struct xp_tls_last_recv). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, XP_TLS_MAX_CALLS);
	__type(key, __u32);
	__type(value, struct xp_tls_last_recv);
} tls_last_recv SEC(".maps");

/*
 * Wake the consumer only once XP_WAKEUP_BYTES are pending (a wakeup is a
 * context switch per record otherwise: it doubled the cost of a traced
 * 100-byte SSL_write in bench/tls). Records carry their own timestamps,
 * so a late delivery (at most the consumer's poll timeout) changes no
 * measurement; rare records (connect, close, SNI) still wake at once.
 */
#define XP_WAKEUP_BYTES (64 * 1024)

/* Flags for bpf_ringbuf_submit/output: wake only past XP_WAKEUP_BYTES. */
static __always_inline __u64 xp_wakeup_flags(void)
{
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= XP_WAKEUP_BYTES ?
		       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/* bpf_ringbuf_output with batched wakeups; counts the drop on failure. */
static __always_inline void xp_output_batched(void *rec, __u32 type, __u64 size)
{
	if (bpf_ringbuf_output(&events, rec, size, xp_wakeup_flags()))
		xp_count_drop(type);
}

#endif /* XPERF_BPF_TLS_CALLS_BPF_H */
