// SPDX-License-Identifier: MIT
/*
 * sock.bpf.c - the ciphertext tier: TCP connections of traced processes,
 * each socket read and write with its size and times, and the first bytes
 * a connection sends (the ClientHello, for the SNI). Needs no TLS symbols:
 * it times requests and responses of any stack (BoringSSL in bun, Go's
 * crypto/tls...). Records are built in sock_emit.bpf.h.
 *
 * Two hook sets; userspace (tls_probes.c) loads one, the cheapest the
 * running kernel offers:
 *
 * - socket hooks (kernel 6.4+): tp_btf sock:sock_send_length and
 *   sock:sock_recv_length (fired in sock_sendmsg/sock_recvmsg: socket I/O
 *   only, any path), sock:inet_sock_set_state (connect, accept, close) and
 *   tcp:tcp_destroy_sock, plus mmap_lock:mmap_lock_released for the map
 *   watch. No other process pays anything for its file or pipe I/O; its
 *   socket I/O pays one program call and a protocol check. The syscall, fd
 *   and buffer come from the thread's user registers (bpf_task_pt_regs);
 *   the call's entry is not seen (call_ns 0).
 * - raw syscall hooks (the fallback): tp_btf raw_syscalls sys_enter and
 *   sys_exit. Every syscall of every process takes the tracing slow path
 *   and runs a program (bench/ebpf: about 2x the CPU of a write(2) loop of
 *   an untraced process); for the dozen socket syscalls a traced thread's
 *   call is kept from entry to return.
 *
 * A socket call nested inside an SSL call writes its socket into that
 * thread's `tls_calls` entry: the SSL* -> connection join.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_tracing.h>
#include "common.bpf.h"
#include "sock.h"
#include "sock_emit.bpf.h"
#include "map_watch.bpf.h"
#include "discover_net.bpf.h"

#define EINPROGRESS 115
#define ECONNREFUSED 111
#define MSG_PEEK 2

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Announce files mapped executable (map_watch.bpf.h): for the TLS plaintext tier, the cuda module. */
const volatile bool watch_maps = false;

/* ---- raw syscall hooks ---- */

/* A socket syscall between its entry and its return, per thread. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct sock_call);
} pending SEC(".maps");

/* A send syscall of an untraced process, at entry: network discovery (discover_net.bpf.h). */
static __always_inline bool discover_enter(struct pt_regs *regs, int call)
{
	struct sock_call p = { .call = call };
	struct sock *sk;
	__u64 id, len;

	p.fd = regs->di;
	sk = fd_sock(p.fd, &id);
	if (!sk)
		return false;
	p.arg = regs->si;
	len = call == XP_SOCK_WRITE || call == XP_SOCK_SENDTO ? regs->dx : XP_SOCK_PREFIX;
	return discover_send(sk, id, &p, len);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long nr)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	int call = call_of(nr);
	struct sock_call p = {};
	struct sock_facts f = {};
	struct sock *sk;

	if (call < 0)
		return 0;
	if (!xk_traced() && !(discover_net && call_sends(call) && discover_enter(regs, call)))
		return 0;
	p.fd = regs->di;
	if (call == XP_SOCK_CLOSE) {
		sk = fd_sock(p.fd, &f.id);
		if (sk) {
			emit_conn(XP_EV_SOCK_CLOSE, sk, &f, p.fd, 0, NULL, 0);
			bpf_map_delete_elem(&prefix_done, &f.id);
		}
		return 0;
	}
	p.arg = regs->si;
	p.call = call;
	p.call_ns = bpf_ktime_get_ns();
	bpf_map_update_elem(&pending, &tid, &p, BPF_ANY);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	long nr = regs->orig_ax;
	struct sock_call p, *pp;
	struct sock_facts f = {};
	struct sock *sk;

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
	sk = fd_sock(p.fd, &f.id);
	if (!sk)
		return 0;
	if (p.call == XP_SOCK_CONNECT) {
		if (ret == 0 || ret == -EINPROGRESS)
			emit_conn(XP_EV_SOCK_CONNECT, sk, &f, p.fd, ret, NULL, p.call_ns);
	} else if (p.call == XP_SOCK_ACCEPT) {
		emit_conn(XP_EV_SOCK_ACCEPT, sk, &f, p.fd, 0, NULL, 0);
	} else if (ret > 0) {
		emit_data(bpf_get_current_task_btf(), sk, &f, &p, ret, call_sends(p.call));
	}
	return 0;
}

/* ---- socket hooks ---- */

/*
 * A TCP socket of a traced process (key: struct sock *): who owns it,
 * whether its connect or accept was announced, and the facts its records
 * repeat (sock_emit.bpf.h), cached at its first I/O so that a later call
 * reads nothing of the socket but its file, to check the fd. A connection
 * completes and ends in softirq, on another process's time, so records
 * about it are written for this owner. Passive sockets enter at their
 * handshake (SOCK_PASSIVE, any process: a listener's owner is not known
 * there) and get their owner, and the accept record, at their first I/O.
 */
#define SOCK_PASSIVE 1
#define SOCK_OPENED 2	/* connect or accept announced: close is too */

struct sock_owner {
	struct xk_hdr who;	/* tgid, tid, start_ns of the owner */
	struct sock_facts facts;
	__s32 fd;
	__u32 flags;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct sock_owner);
} socks SEC(".maps");

/* The user registers of t, the current task (bpf_get_current_task_btf()). */
static __always_inline struct pt_regs *user_regs(struct task_struct *t)
{
	return (struct pt_regs *)bpf_task_pt_regs(t);
}

/* sk's inode number, its sock_id; sk is a BTF pointer (tp_btf): plain loads. */
static __always_inline __u64 sock_ino(struct sock *sk)
{
	return sk->sk_socket->file->f_inode->i_ino;
}

/*
 * The socket call the current thread is in, from its user registers: the
 * syscall, its fd (checked to be sk's: sendfile, splice and io_uring name
 * other fds or none) and buffer argument. sk and the registers are BTF
 * pointers (tp_btf, bpf_task_pt_regs): plain loads.
 */
static __always_inline void call_from_regs(struct task_struct *t, struct sock *sk,
					   struct sock_call *p)
{
	struct pt_regs *regs = user_regs(t);
	int call = call_of(regs->orig_ax);
	__s32 fd = regs->di;

	p->call_ns = 0;
	p->call = call < 0 ? XP_SOCK_OTHER : call;
	p->fd = -1;
	p->arg = 0;
	if (call < 0 || fd_file_of(t, fd) != sk->sk_socket->file)
		return;
	p->fd = fd;
	p->arg = regs->si;
}

static __always_inline void owner_set(struct sock_owner *o, __u64 id, __s32 fd)
{
	struct task_struct *t = bpf_get_current_task_btf();

	o->who.tgid = t->tgid;
	o->who.tid = t->pid;
	o->who.start_ns = xk_start_ns(t);
	o->facts.id = id;
	o->fd = fd;
}

/*
 * First I/O of a traced process on sk (o: its entry, if any): take it;
 * announce an accepted one. The entry, NULL if the map refused it.
 */
static __always_inline struct sock_owner *sock_first_io(struct sock *sk, struct sock_owner *o,
							__u64 key, __u64 id,
							const struct sock_call *p)
{
	struct sock_owner fresh = {};

	/* Not seen at connect (connected before tracing began: no connect record), or an
	 * entry left by a freed sock whose memory this one reuses (its inode tells). */
	if (!o || o->who.tgid) {
		owner_set(&fresh, id, p->fd);
		bpf_map_update_elem(&socks, &key, &fresh, BPF_ANY);
		return bpf_map_lookup_elem(&socks, &key);
	}
	owner_set(o, id, p->fd);
	o->flags |= SOCK_OPENED;
	emit_conn(XP_EV_SOCK_ACCEPT, sk, &o->facts, p->fd, 0, NULL, 0);
	return o;
}

/*
 * A socket call moved ret bytes on sk. For a socket of a traced process
 * seen before, one lookup of its entry and the loads of its inode and fd:
 * its protocol and tuple are read at first sight only (sock_facts).
 */
static __always_inline int sock_io(struct sock *sk, int ret, bool send)
{
	struct task_struct *t = bpf_get_current_task_btf();
	bool on = xk_is_traced_tgid(t->tgid);
	struct sock_facts facts = {}, *f;
	struct sock_owner *o = NULL;
	__u64 key = (__u64)sk;
	struct sock_call p;

	/* An untraced process's send is examined for discovery only (discover_net). */
	if (ret <= 0 || !sk || (!on && !(discover_net && send)))
		return 0;
	facts.id = sock_ino(sk);
	if (on)
		o = bpf_map_lookup_elem(&socks, &key);
	if (o && o->who.tgid && o->facts.id == facts.id) {
		call_from_regs(t, sk, &p);
		emit_data(t, sk, &o->facts, &p, ret, send);
		return 0;
	}
	if (!sock_is_tcp(sk))
		return 0;
	call_from_regs(t, sk, &p);
	if (!on) {
		if (!discover_send(sk, facts.id, &p, ret))
			return 0;
		o = bpf_map_lookup_elem(&socks, &key);	/* traced from now */
	}
	o = sock_first_io(sk, o, key, facts.id, &p);
	f = &facts;
	if (o) {
		f = &o->facts;
		barrier_var(f);	/* else clang offsets o before its null check */
	}
	emit_data(t, sk, f, &p, ret, send);
	return 0;
}

SEC("tp_btf/sock_send_length")
int BPF_PROG(sock_send, struct sock *sk, int ret, int flags)
{
	return sock_io(sk, ret, true);
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(sock_recv, struct sock *sk, int ret, int flags)
{
	return flags & MSG_PEEK ? 0 : sock_io(sk, ret, false);
}

/* The connect syscall of a traced process put sk in SYN_SENT. */
static __always_inline void sock_connecting(struct sock *sk)
{
	struct pt_regs *regs = user_regs(bpf_get_current_task_btf());
	struct sock_owner o = {};
	__s32 fd = regs->di;

	if (!xk_traced())
		return;
	if (call_of(regs->orig_ax) != XP_SOCK_CONNECT)
		fd = -1;
	owner_set(&o, sock_ino(sk), fd);
	o.who.ts_ns = bpf_ktime_get_ns();	/* when the connect began: the record's begin_ns */
	o.flags = SOCK_OPENED;
	bpf_map_update_elem(&socks, &sk, &o, BPF_ANY);
}

/* sk left SYN_SENT: the connect's outcome, for its owner. */
static __always_inline void sock_connected(struct sock *sk, int state)
{
	struct sock_owner *o = bpf_map_lookup_elem(&socks, &sk);
	int err = BPF_CORE_READ(sk, sk_err);

	if (!o)
		return;
	if (state != TCP_ESTABLISHED)
		err = -(err ? err : ECONNREFUSED);
	else
		err = 0;
	emit_conn(XP_EV_SOCK_CONNECT, sk, &o->facts, o->fd, err, &o->who, o->who.ts_ns);
}

/* sk is closing (or destroyed): the close record for its owner, once. */
static __always_inline void sock_closed(struct sock *sk)
{
	struct sock_owner *o = bpf_map_lookup_elem(&socks, &sk);
	struct pt_regs *regs;
	__s32 fd;

	if (!o)
		return;
	if (o->who.tgid) {
		fd = o->fd;
		regs = user_regs(bpf_get_current_task_btf());
		if (call_of(regs->orig_ax) == XP_SOCK_CLOSE &&
		    (bpf_get_current_pid_tgid() >> 32) == o->who.tgid)
			fd = regs->di;
		emit_conn(XP_EV_SOCK_CLOSE, sk, &o->facts, fd, 0, &o->who, 0);
		bpf_map_delete_elem(&prefix_done, &o->facts.id);
	}
	bpf_map_delete_elem(&socks, &sk);
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(sock_state, struct sock *sk, int oldstate, int newstate)
{
	struct sock_owner passive = { .flags = SOCK_PASSIVE };

	if (BPF_CORE_READ(sk, sk_protocol) != IPPROTO_TCP)
		return 0;
	if (newstate == TCP_SYN_SENT)
		sock_connecting(sk);
	else if (oldstate == TCP_SYN_SENT)
		sock_connected(sk, newstate);
	else if (oldstate == TCP_SYN_RECV && newstate == TCP_ESTABLISHED)
		bpf_map_update_elem(&socks, &sk, &passive, BPF_NOEXIST);
	if ((oldstate == TCP_ESTABLISHED || oldstate == TCP_CLOSE_WAIT) &&
	    (newstate == TCP_FIN_WAIT1 || newstate == TCP_LAST_ACK || newstate == TCP_CLOSE))
		sock_closed(sk);
	return 0;
}

SEC("tp_btf/tcp_destroy_sock")
int BPF_PROG(sock_destroy, struct sock *sk)
{
	sock_closed(sk);
	return 0;
}

SEC("tp_btf/mmap_lock_released")
int BPF_PROG(mmap_unlocked, struct mm_struct *mm, bool write)
{
	struct task_struct *t;

	if (!write)
		return 0;
	t = bpf_get_current_task_btf();
	if (t->mm != mm || !xk_traced_tgid(t->tgid))
		return 0;
	return map_watch_fd(user_regs(t));
}
