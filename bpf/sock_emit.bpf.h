/* SPDX-License-Identifier: MIT */
/*
 * sock_emit.bpf.h - the records of the socket tier (sock.h), built the same
 * way whichever hooks fired (BPF only): sock.bpf.c has two hook sets, the
 * raw syscall tracepoints and the socket tracepoints, and both describe a
 * socket call as a `struct sock_call` and hand it here. Also the fd -> TCP
 * sock resolution both sets use.
 */
#ifndef XPERF_BPF_SOCK_EMIT_BPF_H
#define XPERF_BPF_SOCK_EMIT_BPF_H

#include "common.bpf.h"
#include "sock.h"
#include "tls_calls.bpf.h"

#define AF_INET 2
#define AF_INET6 10
#define IPPROTO_TCP 6
#define S_IFMT 00170000
#define S_IFSOCK 0140000

/* A socket call of the current thread: what its hooks learned about it. */
struct sock_call {
	__u64 call_ns;	/* entry; 0 where the hooks see only the return */
	__u64 arg;	/* buffer, iovec array or msghdr, by call; 0: unknown */
	__s32 fd;	/* -1: unknown (not a socket syscall: io_uring, splice) */
	__u32 call;	/* enum xk_sock_call */
};

/*
 * What the records say about a socket: its id, and what the socket hooks
 * cache per socket (sock.bpf.c's `socks`) so that a call reads nothing of
 * it again: its 4-tuple (fixed once connected) and that its first send was
 * taken. The raw syscall hooks keep none: flags 0, read per call.
 */
#define SOCK_FACT_TUPLE 1	/* tuple holds the socket's 4-tuple */
#define SOCK_FACT_PREFIX 2	/* its first send was taken (prefix_done holds it) */

struct sock_facts {
	__u64 id;	/* sock_id: the socket's inode number */
	struct xk_sock_tuple tuple;
	__u32 flags;	/* SOCK_FACT_* */
	__u32 pad;
};

/* Sockets whose first send was already taken (key: sock_id). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u8);
} prefix_done SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xk_sock_sni);
} sni_heap SEC(".maps");

/* x86-64 syscall number -> enum xk_sock_call, -1 for any other syscall. */
static __always_inline int call_of(long nr)
{
	switch (nr) {
	case 0: return XP_SOCK_READ;
	case 1: return XP_SOCK_WRITE;
	case 3: return XP_SOCK_CLOSE;
	case 19: return XP_SOCK_READV;
	case 20: return XP_SOCK_WRITEV;
	case 42: return XP_SOCK_CONNECT;
	case 43: return XP_SOCK_ACCEPT;
	case 44: return XP_SOCK_SENDTO;
	case 45: return XP_SOCK_RECVFROM;
	case 46: return XP_SOCK_SENDMSG;
	case 47: return XP_SOCK_RECVMSG;
	case 288: return XP_SOCK_ACCEPT;	/* accept4 */
	default: return -1;
	}
}

static __always_inline bool call_sends(__u32 call)
{
	return call == XP_SOCK_WRITE || call == XP_SOCK_WRITEV || call == XP_SOCK_SENDTO ||
	       call == XP_SOCK_SENDMSG;
}

/* sk is a TCP socket of the inet families (not unix, UDP, netlink...). */
static __always_inline bool sock_is_tcp(struct sock *sk)
{
	__u16 family = BPF_CORE_READ(sk, __sk_common.skc_family);

	return BPF_CORE_READ(sk, sk_protocol) == IPPROTO_TCP &&
	       (family == AF_INET || family == AF_INET6);
}

/* The TCP sock behind fd of the current process, or NULL; *id: its inode. */
static __always_inline struct sock *fd_sock(__s32 fd, __u64 *id)
{
	struct file *f = fd_file(fd);
	struct socket *so;
	struct sock *sk;

	if (!f || (BPF_CORE_READ(f, f_inode, i_mode) & S_IFMT) != S_IFSOCK)
		return NULL;
	so = BPF_CORE_READ(f, private_data);
	sk = BPF_CORE_READ(so, sk);
	if (!sk || !sock_is_tcp(sk))
		return NULL;
	*id = BPF_CORE_READ(f, f_inode, i_ino);
	return sk;
}

static __always_inline void read_tuple(struct sock *sk, struct xk_sock_tuple *t)
{
	struct sock_common *c = &sk->__sk_common;
	__u32 s4, d4;

	t->family = BPF_CORE_READ(c, skc_family);
	t->sport = BPF_CORE_READ(c, skc_num);
	t->dport = bpf_ntohs(BPF_CORE_READ(c, skc_dport));
	if (t->family == AF_INET6) {
		BPF_CORE_READ_INTO(&t->saddr, c, skc_v6_rcv_saddr.in6_u.u6_addr8);
		BPF_CORE_READ_INTO(&t->daddr, c, skc_v6_daddr.in6_u.u6_addr8);
		return;
	}
	/* IPv4-mapped (::ffff:a.b.c.d); read whole: READ_INTO sizes by dst. */
	s4 = BPF_CORE_READ(c, skc_rcv_saddr);
	d4 = BPF_CORE_READ(c, skc_daddr);
	__builtin_memset(t->saddr, 0, 16);
	__builtin_memset(t->daddr, 0, 16);
	t->saddr[10] = t->saddr[11] = t->daddr[10] = t->daddr[11] = 0xff;
	__builtin_memcpy(&t->saddr[12], &s4, 4);
	__builtin_memcpy(&t->daddr[12], &d4, 4);
}

/*
 * A connection record about `owner` (NULL: the current process): the
 * socket hooks may see a connection complete or end in softirq context,
 * on another process's time. f: what is known of sk; its tuple is read
 * once and kept there (the socket hooks' `socks` entry: the connect's
 * record fills it, so the first send and the close read it no more).
 */
static __always_inline void emit_conn(__u32 type, struct sock *sk, struct sock_facts *f, __s32 fd,
				      __s32 err, const struct xk_hdr *owner, __u64 begin_ns)
{
	struct xk_sock_conn *e = xk_reserve(type, sizeof(*e));
	struct tcp_sock *tp = (void *)sk;

	if (!e)
		return;
	xk_fill_hdr_cur(&e->hdr, type, sizeof(*e));
	if (owner) {
		e->hdr.tgid = owner->tgid;
		e->hdr.tid = owner->tid;
		e->hdr.start_ns = owner->start_ns;
	}
	if (!(f->flags & SOCK_FACT_TUPLE)) {
		read_tuple(sk, &f->tuple);
		f->flags |= SOCK_FACT_TUPLE;
	}
	e->sock_id = f->id;
	e->tuple = f->tuple;
	e->fd = fd;
	e->err = err;
	e->begin_ns = begin_ns;
	e->bytes[XP_SOCK_SEND] = type == XP_EV_SOCK_CLOSE ? BPF_CORE_READ(tp, bytes_acked) : 0;
	e->bytes[XP_SOCK_RECV] = type == XP_EV_SOCK_CLOSE ? BPF_CORE_READ(tp, bytes_received) : 0;
	bpf_ringbuf_submit(e, 0);
}

/* Where a send's bytes start: the buffer, or the first iovec's; 0: unknown. */
static __always_inline __u64 send_src(const struct sock_call *p, __u64 *avail)
{
	struct user_msghdr *msg = (void *)p->arg;
	struct iovec *iov = (void *)p->arg, v = {};

	if (!p->arg || !call_sends(p->call))
		return 0;
	if (p->call == XP_SOCK_WRITE || p->call == XP_SOCK_SENDTO)
		return p->arg;
	if (p->call == XP_SOCK_SENDMSG)
		bpf_probe_read_user(&iov, sizeof(iov), &msg->msg_iov);
	if (bpf_probe_read_user(&v, sizeof(v), iov))
		return 0;
	if (v.iov_len < *avail)
		*avail = v.iov_len;
	return (__u64)v.iov_base;
}

/* The first bytes of the first send seen on a socket (the ClientHello). */
static __always_inline void emit_prefix(struct sock *sk, __u64 id, const struct sock_call *p,
					__u64 sent)
{
	__u32 zero = 0;
	__u8 one = 1;
	struct xk_sock_sni *e;
	__u64 n = sent, src;

	/* Look up first: an LRU update on every send would cost more. */
	if (bpf_map_lookup_elem(&prefix_done, &id) ||
	    bpf_map_update_elem(&prefix_done, &id, &one, BPF_NOEXIST))
		return;
	e = bpf_map_lookup_elem(&sni_heap, &zero);
	src = send_src(p, &n);
	if (!e || !src)
		return;
	barrier_var(n);
	if (n > XP_SOCK_PREFIX)
		n = XP_SOCK_PREFIX;
	if (bpf_probe_read_user(e->data, n, (void *)src))
		return;
	xk_fill_hdr_cur(&e->hdr, XP_EV_SOCK_SNI, offsetof(struct xk_sock_sni, data) + n);
	e->sock_id = id;
	read_tuple(sk, &e->tuple);
	e->len = n;
	e->send_len = sent;
	xk_output(e, XP_EV_SOCK_SNI, offsetof(struct xk_sock_sni, data) + n);
}

/*
 * A read or write of the current thread (t: bpf_get_current_task_btf())
 * moved ret bytes on sk: the record, the SSL* -> socket join (tls_calls)
 * and, for a receive, the thread's last receive (tls_last_recv). f: what
 * is known of sk; what it lacks is read (the tuple) or asked (prefix_done)
 * and marked for the next call.
 */
static __always_inline void emit_data(struct task_struct *t, struct sock *sk,
				      struct sock_facts *f, const struct sock_call *p, long ret,
				      bool send)
{
	struct xk_tls_call *call = tls_call_of(t);
	struct xk_sock_data *e;
	__u64 id = f->id;

	if (call) {
		call->sock_id = id;
		call->fd = p->fd;
	}
	if (send && !(f->flags & SOCK_FACT_PREFIX)) {
		emit_prefix(sk, id, p, ret);
		f->flags |= SOCK_FACT_PREFIX;
	} else if (!send) {
		struct xk_tls_last_recv lr = { .sock_id = id, .ts_ns = bpf_ktime_get_ns(),
					       .fd = p->fd };

		tls_last_recv_set(t, &lr);
	}
	e = xk_reserve(XP_EV_SOCK_DATA, sizeof(*e));
	if (!e)
		return;
	xk_fill_hdr_task(&e->hdr, XP_EV_SOCK_DATA, sizeof(*e), t);
	if (!(f->flags & SOCK_FACT_TUPLE)) {
		read_tuple(sk, &f->tuple);
		f->flags |= SOCK_FACT_TUPLE;
	}
	e->sock_id = id;
	e->tuple = f->tuple;
	e->ssl = call ? call->ssl : 0;
	e->call_ns = p->call_ns;
	e->len = ret;
	e->fd = p->fd;
	e->dir = send ? XP_SOCK_SEND : XP_SOCK_RECV;
	e->call = p->call;
	xk_submit(e);
}

#endif /* XPERF_BPF_SOCK_EMIT_BPF_H */
