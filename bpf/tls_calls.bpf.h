/* SPDX-License-Identifier: MIT */
/*
 * tls_calls.bpf.h - the `tls_calls` map (BPF only): the SSL call each
 * thread of a traced process is inside. tls.bpf.c writes it at SSL_*
 * entry and reads it at return; sock.bpf.c, loaded with the same map
 * (bpf_map__reuse_fd), writes the socket cookie of the tcp_sendmsg /
 * tcp_recvmsg nested inside the call: the SSL* -> socket join, with no
 * OpenSSL struct offsets (they change between versions and builds).
 * Task storage: the entry hangs off the thread's task_struct, found by a
 * pointer walk from bpf_get_current_task_btf() (no hash, no LRU lock) and
 * freed with the thread. A thread's entry stays once made: a call
 * overwrites it in place and clears its ssl at return (tls_call_begin/
 * _end). `tls_last_recv` is kept the same way (see tls.h).
 */
#ifndef XPERF_BPF_TLS_CALLS_BPF_H
#define XPERF_BPF_TLS_CALLS_BPF_H

#include "tls.h"

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct xk_tls_call);
} tls_calls SEC(".maps");

/* The last TCP receive per thread (struct xk_tls_last_recv). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct xk_tls_last_recv);
} tls_last_recv SEC(".maps");

/* Thread t (the current task) enters the SSL call c. */
static __always_inline void tls_call_begin(struct task_struct *t, const struct xk_tls_call *c)
{
	struct xk_tls_call *cp = bpf_task_storage_get(&tls_calls, t, 0,
						      BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (cp)
		*cp = *c;
}

/* The SSL call thread t is inside, NULL if none. */
static __always_inline struct xk_tls_call *tls_call_of(struct task_struct *t)
{
	struct xk_tls_call *cp = bpf_task_storage_get(&tls_calls, t, 0, 0);

	return cp && cp->ssl ? cp : NULL;
}

/* The call cp (from tls_call_of) returned. */
static __always_inline void tls_call_end(struct xk_tls_call *cp)
{
	cp->ssl = 0;
}

/* Thread t's last TCP receive, NULL if none seen. */
static __always_inline struct xk_tls_last_recv *tls_last_recv_of(struct task_struct *t)
{
	return bpf_task_storage_get(&tls_last_recv, t, 0, 0);
}

/* Thread t (the current task) received: lr. */
static __always_inline void tls_last_recv_set(struct task_struct *t,
					      const struct xk_tls_last_recv *lr)
{
	struct xk_tls_last_recv *p = bpf_task_storage_get(&tls_last_recv, t, 0,
							   BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (p)
		*p = *lr;
}

/*
 * bpf_ringbuf_output with the batched wakeup of xk_submit() (common.bpf.h):
 * for the frequent variable-size records (TLS data), where xk_output() wakes
 * the consumer at once. Counts the drop on failure.
 */
static __always_inline void xk_output_batched(void *rec, __u32 type, __u64 size)
{
	if (bpf_ringbuf_output(&events, rec, size, xk_ring_wakeup(size)))
		xk_count_drop(type);
}

#endif /* XPERF_BPF_TLS_CALLS_BPF_H */
