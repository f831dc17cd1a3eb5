/* SPDX-License-Identifier: MIT */
/*
 * tls_calls.bpf.h - the `tls_calls` map (BPF only): the SSL call each
 * thread of a traced process is inside. tls.bpf.c writes it at SSL_*
 * entry and reads it at return; sock.bpf.c, loaded with the same map
 * (bpf_map__reuse_fd), writes the socket cookie of the tcp_sendmsg /
 * tcp_recvmsg nested inside the call: the SSL* -> socket join, with no
 * OpenSSL struct offsets (they change between versions and builds).
 * LRU: a thread killed inside an SSL call leaves an entry that ages out.
 * `tls_last_recv` is shared the same way (see tls.h).
 */
#ifndef XPERF_BPF_TLS_CALLS_BPF_H
#define XPERF_BPF_TLS_CALLS_BPF_H

#include "tls.h"

#define XP_TLS_MAX_CALLS 16384	/* threads inside an SSL call at once */

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, XP_TLS_MAX_CALLS);
	__type(key, __u32);
	__type(value, struct xk_tls_call);
} tls_calls SEC(".maps");

/* The last TCP receive per thread (struct xk_tls_last_recv). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, XP_TLS_MAX_CALLS);
	__type(key, __u32);
	__type(value, struct xk_tls_last_recv);
} tls_last_recv SEC(".maps");

/*
 * bpf_ringbuf_output with the batched wakeup of xk_submit() (common.bpf.h):
 * for the frequent variable-size records (TLS data), where xk_output()
 * wakes the consumer at once. Counts the drop on failure.
 */
static __always_inline void xk_output_batched(void *rec, __u32 type, __u64 size)
{
	if (bpf_ringbuf_output(&events, rec, size, xk_ring_wakeup()))
		xk_count_drop(type);
}

#endif /* XPERF_BPF_TLS_CALLS_BPF_H */
