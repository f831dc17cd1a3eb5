// SPDX-License-Identifier: MIT
/*
 * sock.bpf.c - the ciphertext tier: TCP connections of traced processes,
 * each socket read and write with its size and times, and the first bytes
 * a connection sends (the ClientHello, for the SNI). Needs no TLS symbols:
 * it times requests and responses of any stack (BoringSSL in bun, Go's
 * crypto/tls...).
 *
 * Hooks: tp_btf raw_syscalls sys_enter/sys_exit. On this machine kind
 * there are no kprobes (no kprobe PMU, no kprobe_events) and no BPF
 * trampolines (fentry/fexit fail to load), so tcp_sendmsg/tcp_recvmsg
 * cannot be hooked; the raw syscall tracepoint needs neither tracefs nor
 * a probe per syscall. Its cost for everyone else is a switch on the
 * syscall number and, for the dozen socket syscalls, one hash lookup of
 * the traced set. The fd is resolved to its socket in the kernel (fd ->
 * file -> inode: S_ISSOCK, socket -> sock: TCP), so file and pipe I/O
 * emits nothing.
 *
 * A socket syscall nested inside an SSL call writes its socket into that
 * thread's `tls_calls` entry: the SSL* -> connection join. The return of
 * mmap also goes to map_watch.bpf.h (libraries mapped after exec).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_tracing.h>
#include "common.bpf.h"
#include "sock.h"
#include "tls_calls.bpf.h"
#include "map_watch.bpf.h"

#define AF_INET 2
#define AF_INET6 10
#define IPPROTO_TCP 6
#define S_IFMT 00170000
#define S_IFSOCK 0140000
#define EINPROGRESS 115

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Announce files mapped executable (map_watch.bpf.h): for the TLS plaintext tier, the cuda module. */
const volatile bool watch_maps = false;

/* A socket syscall between its entry and its return, per thread. */
struct pending {
	__u64 call_ns;
	__u64 arg;	/* buffer, iovec array or msghdr, by call */
	__s32 fd;
	__u32 call;	/* enum xp_sock_call */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct pending);
} pending SEC(".maps");

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
	__type(value, struct xp_sock_sni);
} sni_heap SEC(".maps");

/* x86-64 syscall number -> enum xp_sock_call, -1 for any other syscall. */
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

/* The TCP sock behind fd of the current process, or NULL; *id: its inode. */
static __always_inline struct sock *fd_sock(__s32 fd, __u64 *id)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct fdtable *fdt = BPF_CORE_READ(t, files, fdt);
	struct file **fds = BPF_CORE_READ(fdt, fd);
	struct file *f = NULL;
	struct socket *so;
	struct sock *sk;
	__u16 family;

	if (fd < 0 || (__u32)fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	if (!f || (BPF_CORE_READ(f, f_inode, i_mode) & S_IFMT) != S_IFSOCK)
		return NULL;
	so = BPF_CORE_READ(f, private_data);
	sk = BPF_CORE_READ(so, sk);
	family = BPF_CORE_READ(sk, __sk_common.skc_family);
	if (!sk || BPF_CORE_READ(sk, sk_protocol) != IPPROTO_TCP ||
	    (family != AF_INET && family != AF_INET6))
		return NULL;
	*id = BPF_CORE_READ(f, f_inode, i_ino);
	return sk;
}

static __always_inline void read_tuple(struct sock *sk, struct xp_sock_tuple *t)
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

static __always_inline void emit_conn(__u32 type, struct sock *sk, __u64 id, __s32 fd, __s32 err)
{
	struct xp_sock_conn *e = xp_reserve(type, sizeof(*e));
	struct tcp_sock *tp = (void *)sk;

	if (!e)
		return;
	xp_fill_hdr(&e->hdr, type, sizeof(*e), bpf_get_current_task_btf());
	e->sock_id = id;
	read_tuple(sk, &e->tuple);
	e->fd = fd;
	e->err = err;
	e->bytes[XP_SOCK_SEND] = type == XP_EV_SOCK_CLOSE ? BPF_CORE_READ(tp, bytes_acked) : 0;
	e->bytes[XP_SOCK_RECV] = type == XP_EV_SOCK_CLOSE ? BPF_CORE_READ(tp, bytes_received) : 0;
	bpf_ringbuf_submit(e, 0);
}

/* Where a send's bytes start: the buffer, or the first iovec's. */
static __always_inline __u64 send_src(const struct pending *p, __u64 *avail)
{
	struct user_msghdr *msg = (void *)p->arg;
	struct iovec *iov = (void *)p->arg, v = {};

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
static __always_inline void emit_prefix(struct sock *sk, __u64 id, const struct pending *p,
					__u64 sent)
{
	__u32 zero = 0;
	__u8 one = 1;
	struct xp_sock_sni *e;
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
	xp_fill_hdr(&e->hdr, XP_EV_SOCK_SNI, offsetof(struct xp_sock_sni, data) + n,
		    bpf_get_current_task_btf());
	e->sock_id = id;
	read_tuple(sk, &e->tuple);
	e->len = n;
	e->send_len = sent;
	xp_output(e, XP_EV_SOCK_SNI, offsetof(struct xp_sock_sni, data) + n);
}

static __always_inline void emit_data(struct sock *sk, __u64 id, const struct pending *p, long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct xp_tls_call *call = bpf_map_lookup_elem(&tls_calls, &tid);
	bool send = call_sends(p->call);
	struct xp_sock_data *e;

	if (call) {
		call->sock_id = id;
		call->fd = p->fd;
	}
	if (send) {
		emit_prefix(sk, id, p, ret);
	} else {
		struct xp_tls_last_recv lr = { .sock_id = id, .ts_ns = bpf_ktime_get_ns(),
					       .fd = p->fd };

		bpf_map_update_elem(&tls_last_recv, &tid, &lr, BPF_ANY);
	}
	e = xp_reserve(XP_EV_SOCK_DATA, sizeof(*e));
	if (!e)
		return;
	xp_fill_hdr(&e->hdr, XP_EV_SOCK_DATA, sizeof(*e), bpf_get_current_task_btf());
	e->sock_id = id;
	read_tuple(sk, &e->tuple);
	e->ssl = call ? call->ssl : 0;
	e->call_ns = p->call_ns;
	e->len = ret;
	e->fd = p->fd;
	e->dir = send ? XP_SOCK_SEND : XP_SOCK_RECV;
	e->call = p->call;
	xp_submit(e);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long nr)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	int call = call_of(nr);
	struct pending p = {};
	struct sock *sk;
	__u64 id;

	if (call < 0 || !xp_traced())
		return 0;
	p.fd = PT_REGS_PARM1_CORE_SYSCALL(regs);
	if (call == XP_SOCK_CLOSE) {
		sk = fd_sock(p.fd, &id);
		if (sk) {
			emit_conn(XP_EV_SOCK_CLOSE, sk, id, p.fd, 0);
			bpf_map_delete_elem(&prefix_done, &id);
		}
		return 0;
	}
	p.arg = PT_REGS_PARM2_CORE_SYSCALL(regs);
	p.call = call;
	p.call_ns = bpf_ktime_get_ns();
	bpf_map_update_elem(&pending, &tid, &p, BPF_ANY);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	long nr = BPF_CORE_READ(regs, orig_ax);
	struct pending p, *pp;
	struct sock *sk;
	__u64 id;

	if (nr == NR_MMAP)
		return watch_maps ? map_watch(regs, ret) : 0;
	if (call_of(nr) < 0)
		return 0;
	pp = bpf_map_lookup_elem(&pending, &tid);
	if (!pp)
		return 0;
	p = *pp;
	bpf_map_delete_elem(&pending, &tid);
	if (p.call == XP_SOCK_ACCEPT)
		p.fd = ret;
	sk = fd_sock(p.fd, &id);
	if (!sk)
		return 0;
	if (p.call == XP_SOCK_CONNECT) {
		if (ret == 0 || ret == -EINPROGRESS)
			emit_conn(XP_EV_SOCK_CONNECT, sk, id, p.fd, ret);
	} else if (p.call == XP_SOCK_ACCEPT) {
		emit_conn(XP_EV_SOCK_ACCEPT, sk, id, p.fd, 0);
	} else if (ret > 0) {
		emit_data(sk, id, &p, ret);
	}
	return 0;
}
