/* SPDX-License-Identifier: MIT */
/*
 * tls_calls.bpf.h - the `tls_calls` map (BPF only): the SSL call each
 * thread of a traced process is inside. tls.bpf.c writes it at SSL_*
 * entry and reads it at return; sock.bpf.c, loaded with the same map
 * (bpf_map__reuse_fd), writes the socket cookie of the tcp_sendmsg /
 * tcp_recvmsg nested inside the call: the SSL* -> socket join, with no
 * OpenSSL struct offsets (they change between versions and builds).
 * A thread's entry stays once made: a call overwrites it in place and
 * clears its ssl at return (tls_call_begin/_end), two lookups per call
 * where an LRU insert and a delete (each a lock and a node moved) cost
 * the traced thread more (bench/tls/gap.sh). LRU: a gone thread's entry
 * ages out. `tls_last_recv` is shared the same way (see tls.h).
 */
#ifndef XPERF_BPF_TLS_CALLS_BPF_H
#define XPERF_BPF_TLS_CALLS_BPF_H

#include "tls.h"

#define XP_TLS_MAX_CALLS 16384	/* threads that made SSL calls lately */

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

/* Thread tid enters the SSL call c. */
static __always_inline void tls_call_begin(__u32 tid, const struct xk_tls_call *c)
{
	struct xk_tls_call *cp = bpf_map_lookup_elem(&tls_calls, &tid);

	if (cp)
		*cp = *c;
	else
		bpf_map_update_elem(&tls_calls, &tid, c, BPF_ANY);
}

/* The SSL call thread tid is inside, NULL if none. */
static __always_inline struct xk_tls_call *tls_call_of(__u32 tid)
{
	struct xk_tls_call *cp = bpf_map_lookup_elem(&tls_calls, &tid);

	return cp && cp->ssl ? cp : NULL;
}

/* The call cp (from tls_call_of) returned. */
static __always_inline void tls_call_end(struct xk_tls_call *cp)
{
	cp->ssl = 0;
}

/* Thread tid's last TCP receive, in place once the thread has an entry. */
static __always_inline void tls_last_recv_set(__u32 tid, const struct xk_tls_last_recv *lr)
{
	struct xk_tls_last_recv *p = bpf_map_lookup_elem(&tls_last_recv, &tid);

	if (p)
		*p = *lr;
	else
		bpf_map_update_elem(&tls_last_recv, &tid, lr, BPF_ANY);
}

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
