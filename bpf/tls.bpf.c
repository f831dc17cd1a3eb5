// SPDX-License-Identifier: MIT
/*
 * tls.bpf.c - plaintext of SSL_write/SSL_read(_ex) in traced processes.
 *
 * Entry uprobes stash (SSL*, buffer, size_t * of _ex) per thread in
 * `tls_calls`; return probes learn how many bytes the call really moved
 * (SSL_write may fail with WANT_WRITE and be retried, so the entry's
 * length is not the truth) and copy that many, up to `cap_bytes`, in
 * XP_TLS_CHUNK records of their exact size, read from the process straight
 * into the ring (copy_direct; built in per-CPU scratch on older kernels).
 * Each record carries its position in the connection's byte stream, the
 * call's length and the captured length: truncation, faulted copies and
 * full-ring drops (counted in `drops`) all show up as gaps, never as
 * silently shorter data. The socket comes
 * from sock.bpf.c through `tls_calls` and is remembered per connection.
 *
 * Untraced processes pay, beyond the uprobe trap itself (see per_pid in
 * userspace/tls_probes.h), one map lookup per probe and nothing else; in
 * the daemon with `path` rules loaded, an untraced process's SSL_write
 * also has its first bytes read for a request line (discover_write()).
 * One program body serves all four functions: the variants differ by
 * enum xk_tls_fn only.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "common.bpf.h"
#include "discover_path.bpf.h"
#include "tls.h"
#include "tls_calls.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Bytes captured per SSL call at most; the rest is counted in call_len. */
const volatile __u32 cap_bytes = XP_TLS_CAP_DEFAULT;

/*
 * Set by the loader where the kernel has bpf_probe_read_user_dynptr
 * (6.16+): each chunk is read from the process straight into its ring
 * record. Elsewhere the kfunc stays unresolved (weak) and this branch is
 * dead code the verifier drops: the chunk is built in `tls_heap` and
 * copied into the ring.
 * Why not the scratch everywhere: uprobe programs run under
 * migrate_disable() and rcu_read_lock(), which with PREEMPT_RCU leaves
 * preemption on. Under preempt=full or lazy (CONFIG_PREEMPT_DYNAMIC
 * kernels choose at boot) another task on this CPU can run this program
 * between the copy into `tls_heap` and its output, and the record leaves
 * with the other call's bytes. A reservation belongs to this run alone.
 * (The 6.18 VM these tests run on boots preempt=none: no race there.)
 */
const volatile bool copy_direct = false;

extern int bpf_probe_read_user_dynptr(struct bpf_dynptr *dptr, __u32 off, __u32 size,
				      const void *unsafe_ptr) __ksym __weak;

/* How recent the thread's last socket receive must be to name an SSL_read's socket. */
#define INFER_WINDOW_NS (10 * 1000 * 1000)

/* A connection: SSL* in one process. start_ns tells a reused pid apart. */
struct tls_key {
	__u64 ssl;
	__u32 tgid;
	__u32 pad;
};

struct tls_conn {
	__u64 start_ns;
	__u64 sock_id;	/* last socket seen under this SSL* (reads served */
	__s32 fd;	/* from OpenSSL's buffer make no syscall) */
	__u32 pad;
	__u64 pos[2];	/* next byte position, by enum xk_tls_dir */
};

/* LRU: a process killed before SSL_free leaves entries that age out. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct tls_key);
	__type(value, struct tls_conn);
} tls_conns SEC(".maps");

/* One record under construction per CPU (16 KiB: far over the stack); !copy_direct only. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xk_tls_data);
} tls_heap SEC(".maps");

static __always_inline bool fn_is_ex(enum xk_tls_fn fn)
{
	return fn == XP_TLS_FN_WRITE_EX || fn == XP_TLS_FN_READ_EX;
}

static __always_inline enum xk_tls_dir fn_dir(enum xk_tls_fn fn)
{
	return fn == XP_TLS_FN_READ || fn == XP_TLS_FN_READ_EX ? XP_TLS_READ : XP_TLS_WRITE;
}

/* The call about to run, as the return probe needs it; the uprobe's cookie says if located. */
static __always_inline struct xk_tls_call new_call(struct pt_regs *ctx, __u64 ssl, __u64 buf,
						   __u64 len_ptr, enum xk_tls_fn fn)
{
	struct xk_tls_call c = {
		.ssl = ssl,
		.buf = buf,
		.len_ptr = len_ptr,
		.call_ns = bpf_ktime_get_ns(),
		.fd = -1,
		.fn = fn,
		.located = bpf_get_attach_cookie(ctx) & 0xffff,
	};

	return c;
}

/*
 * The daemon's `path` rules in TLS: an untraced process whose SSL_write(_ex)
 * starts an HTTP/1.x request to a rule's path becomes traced here, this call
 * included (discover_path.bpf.h). Only the request line is read. Written by
 * userspace at each rule load: without path rules this is one load of a
 * global, no helper call.
 */
__u32 discover_path_rules = 0;

static __always_inline bool discover_write(struct pt_regs *ctx, enum xk_tls_fn fn)
{
	struct discover_scratch *s;
	struct xk_sock_discover *e;
	__u64 n = PT_REGS_PARM3(ctx);
	__u32 zero = 0;

	if (!discover_path_rules || fn_dir(fn) != XP_TLS_WRITE)
		return false;
	if (fn == XP_TLS_FN_WRITE)	/* SSL_write's length is an int */
		n = (int)n > 0 ? (__u32)n : 0;
	s = bpf_map_lookup_elem(&discover_heap, &zero);
	barrier_var(n);
	if (n > DISCOVER_LINE_MAX)
		n = DISCOVER_LINE_MAX;
	if (!s || !n || bpf_probe_read_user(s->buf, n, (void *)PT_REGS_PARM2(ctx)))
		return false;
	__builtin_memset(&s->name, 0, sizeof(s->name));
	if (!discover_path_rule(s, n) || !discover_join(XP_DISCOVER_PATH, &s->name, 0, &e))
		return false;
	if (e) {	/* no socket yet at entry: the tuple is left zero */
		__builtin_memset(&e->tuple, 0, sizeof(e->tuple));
		bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	}
	return true;
}

static __always_inline int call_enter(struct pt_regs *ctx, enum xk_tls_fn fn)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct xk_tls_call c;

	if (!xk_is_traced_tgid(t->tgid) && !discover_write(ctx, fn))
		return 0;
	c = new_call(ctx, PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx),
		     fn_is_ex(fn) ? PT_REGS_PARM4(ctx) : 0, fn);
	tls_call_begin(t, &c);
	return 0;
}

/* Bytes the call moved: SSL_read/write's return value, or *len_ptr of _ex. */
static __always_inline __u64 call_moved(struct pt_regs *ctx, const struct xk_tls_call *c)
{
	int ret = PT_REGS_RC(ctx);	/* an int: rax's upper half is not defined */
	__u64 n = 0;

	if (!c->len_ptr)
		return ret > 0 ? ret : 0;
	if (ret != 1 || bpf_probe_read_user(&n, sizeof(n), (void *)c->len_ptr))
		return 0;
	return n;
}

/* The connection's state, created (pos 0, XP_TLS_NEW_CONN) on first sight. */
static __always_inline struct tls_conn *conn_get(__u64 ssl, __u32 tgid, __u64 start_ns,
						  __u8 *flags)
{
	struct tls_key k = { .ssl = ssl, .tgid = tgid };
	struct tls_conn *conn = bpf_map_lookup_elem(&tls_conns, &k);
	struct tls_conn fresh = { .start_ns = start_ns, .fd = -1 };

	if (conn && conn->start_ns == start_ns)
		return conn;
	*flags |= XP_TLS_NEW_CONN;
	bpf_map_update_elem(&tls_conns, &k, &fresh, BPF_ANY);
	return bpf_map_lookup_elem(&tls_conns, &k);
}

/* XP_EV_TLS_FREE: the connection ssl ends, with its totals. */
static __always_inline void emit_free(__u64 ssl, const struct tls_conn *conn)
{
	struct xk_tls_free *e = xk_reserve(XP_EV_TLS_FREE, sizeof(*e));

	if (!e)
		return;
	xk_fill_hdr_cur(&e->hdr, XP_EV_TLS_FREE, sizeof(*e));
	e->ssl = ssl;
	e->sock_id = conn->sock_id;
	e->bytes[0] = conn->pos[0];
	e->bytes[1] = conn->pos[1];
	bpf_ringbuf_submit(e, 0);
}

/*
 * Located functions have no SSL_free probe: an SSL* reused by a new
 * connection shows as a new socket under it. End the old id as SSL_free
 * would (XP_EV_TLS_FREE with its totals) and start again at position 0.
 */
static __always_inline void conn_restart(struct tls_conn *conn, __u64 ssl, __u64 sock_id,
					 __u8 *flags)
{
	if (!conn->sock_id || !sock_id || conn->sock_id == sock_id)
		return;
	emit_free(ssl, conn);
	conn->pos[0] = conn->pos[1] = 0;
	*flags |= XP_TLS_NEW_CONN;
}

/* A memory-BIO stack read its socket just before this SSL_read: take it. */
static __always_inline void infer_sock(struct tls_conn *conn, struct task_struct *t,
				       __u64 call_ns, __u8 *flags)
{
	struct xk_tls_last_recv *lr = tls_last_recv_of(t);

	if (!lr || lr->ts_ns > call_ns || call_ns - lr->ts_ns > INFER_WINDOW_NS)
		return;
	conn->sock_id = lr->sock_id;
	conn->fd = lr->fd;
	*flags |= XP_TLS_SOCK_INFERRED;
}

/* The fixed part of a TLS data record, before its data. */
#define TLS_HEAD __builtin_offsetof(struct xk_tls_data, data)

struct chunk_ctx {
	__u64 head[TLS_HEAD / 8];	/* the record's fixed part, the same in every chunk */
	__u64 buf;
	__u64 pos;
	__u32 capture;	/* bytes to copy: min(call_len, cap_bytes) */
	__u8 flags;		/* on every record of the call */
	__u8 first_flags;	/* XP_TLS_NEW_CONN on a connection's first call */
	__u8 last_flags;	/* XP_TLS_LAST, plus XP_TLS_TRUNC when capped */
};

/*
 * Chunk r (its fixed part filled, len n) with its n bytes read straight
 * into a ring record of its exact size: one copy, no scratch. A faulted
 * read gives the record without data (XP_TLS_COPY_FAIL).
 */
static __always_inline void emit_direct(struct xk_tls_data *r, __u64 src, __u64 n)
{
	struct bpf_dynptr dp;

	if (bpf_ringbuf_reserve_dynptr(&events, TLS_HEAD + n, 0, &dp)) {
		bpf_ringbuf_discard_dynptr(&dp, 0);
		xk_count_drop(XP_EV_TLS_DATA);
		return;
	}
	if (bpf_probe_read_user_dynptr(&dp, TLS_HEAD, n, (void *)src)) {
		bpf_ringbuf_discard_dynptr(&dp, 0);
		r->flags |= XP_TLS_COPY_FAIL;
		r->len = 0;
		r->hdr.size = TLS_HEAD;
		xk_output_batched(r, XP_EV_TLS_DATA, TLS_HEAD);
		return;
	}
	bpf_dynptr_write(&dp, 0, r, TLS_HEAD, 0);
	bpf_ringbuf_submit_dynptr(&dp, xk_ring_wakeup(TLS_HEAD + n));
}

/* The same through the per-CPU scratch: kernels without bpf_probe_read_user_dynptr. */
static __always_inline void emit_scratch(struct xk_tls_data *head, __u64 src, __u64 n)
{
	__u32 zero = 0;
	struct xk_tls_data *r = bpf_map_lookup_elem(&tls_heap, &zero);

	if (!r)
		return;
	__builtin_memcpy(r, head, TLS_HEAD);
	if (bpf_probe_read_user(r->data, n, (void *)src)) {
		r->flags |= XP_TLS_COPY_FAIL;
		n = 0;
	}
	r->len = n;
	r->hdr.size = TLS_HEAD + n;
	xk_output_batched(r, XP_EV_TLS_DATA, TLS_HEAD + n);
}

/* bpf_loop body: copy and emit chunk i of the call; 1 stops the loop. */
static long emit_chunk(__u32 i, struct chunk_ctx *cc)
{
	struct xk_tls_data *r = (struct xk_tls_data *)cc->head;
	__u64 off = (__u64)i * XP_TLS_CHUNK, n;

	if (off >= cc->capture)
		return 1;
	n = cc->capture - off;
	/* 64-bit n, clamped after a barrier: the verifier sees the same register. */
	barrier_var(n);
	if (n > XP_TLS_CHUNK)
		n = XP_TLS_CHUNK;
	r->flags = cc->flags | (i == 0 ? cc->first_flags : 0) |
		   (off + n == cc->capture ? cc->last_flags : 0);
	r->offset = off;
	r->pos = cc->pos + off;
	r->len = n;
	r->hdr.size = TLS_HEAD + n;
	if (copy_direct)
		emit_direct(r, cc->buf + off, n);
	else
		emit_scratch(r, cc->buf + off, n);
	return 0;
}

/*
 * Emit the call c that moved `moved` bytes: positions, socket, chunks.
 * t: the current task (bpf_get_current_task_btf()).
 */
static __always_inline int call_finish(struct task_struct *t, struct xk_tls_call *c, __u64 moved)
{
	struct chunk_ctx cc = {};
	struct xk_tls_data *r = (struct xk_tls_data *)cc.head;
	struct tls_conn *conn;
	__u8 dir;

	if (!moved || moved > 0xffffffffULL)
		return 0;
	dir = fn_dir(c->fn);
	xk_fill_hdr_task(&r->hdr, XP_EV_TLS_DATA, 0, t);
	conn = conn_get(c->ssl, r->hdr.tgid, r->hdr.start_ns, &cc.first_flags);
	if (!conn)
		return 0;
	if (c->located)
		conn_restart(conn, c->ssl, c->sock_id, &cc.first_flags);
	if (c->sock_id) {
		conn->sock_id = c->sock_id;
		conn->fd = c->fd;
	} else if (!conn->sock_id && dir == XP_TLS_READ) {
		infer_sock(conn, t, c->call_ns, &cc.flags);
	}
	cc.pos = conn->pos[dir & 1];
	conn->pos[dir & 1] += moved;
	r->ssl = c->ssl;
	r->sock_id = conn->sock_id;
	r->fd = conn->fd;
	r->call_ns = c->call_ns;
	r->call_len = moved;
	r->dir = dir;
	r->fn = c->fn;
	r->located = c->located;
	cc.flags |= c->located ? XP_TLS_LOCATED : 0;
	cc.buf = c->buf;
	cc.capture = moved < cap_bytes ? moved : cap_bytes;
	cc.last_flags = XP_TLS_LAST | (cc.capture < moved ? XP_TLS_TRUNC : 0);
	if (cc.capture <= XP_TLS_CHUNK)	/* most calls: one chunk, no loop to set up */
		emit_chunk(0, &cc);
	else
		bpf_loop(XP_TLS_CAP_MAX / XP_TLS_CHUNK, emit_chunk, &cc, 0);
	return 0;
}

static __always_inline int call_exit(struct pt_regs *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct xk_tls_call c, *cp = tls_call_of(t);

	if (!cp)
		return 0;
	c = *cp;
	tls_call_end(cp);
	return call_finish(t, &c, call_moved(ctx, &c));
}

SEC("uprobe/SSL_write")
int BPF_KPROBE(ssl_write_enter)
{
	return call_enter(ctx, XP_TLS_FN_WRITE);
}

SEC("uprobe/SSL_read")
int BPF_KPROBE(ssl_read_enter)
{
	return call_enter(ctx, XP_TLS_FN_READ);
}

SEC("uprobe/SSL_write_ex")
int BPF_KPROBE(ssl_write_ex_enter)
{
	return call_enter(ctx, XP_TLS_FN_WRITE_EX);
}

SEC("uprobe/SSL_read_ex")
int BPF_KPROBE(ssl_read_ex_enter)
{
	return call_enter(ctx, XP_TLS_FN_READ_EX);
}

/* One return program serves all four: the entry recorded which it was. */
SEC("uretprobe/SSL_rw")
int BPF_KRETPROBE(ssl_rw_exit)
{
	return call_exit(ctx);
}

SEC("uprobe/SSL_free")
int BPF_KPROBE(ssl_free, __u64 ssl)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct tls_key k = { .ssl = ssl, .tgid = tgid };
	struct tls_conn *conn;

	if (!xk_traced())
		return 0;
	conn = bpf_map_lookup_elem(&tls_conns, &k);
	if (!conn)
		return 0;
	emit_free(ssl, conn);
	bpf_map_delete_elem(&tls_conns, &k);
	return 0;
}

/*
 * Go's crypto/tls.(*Conn).Write/Read, located in .gopclntab (userspace/
 * locate/gopclntab.h). Register ABI: receiver (*Conn, the connection's
 * id here) in rax, buffer in rbx, n returned in rax; g (the goroutine) in
 * r14 throughout. Calls are keyed by goroutine: one blocked in Read may
 * resume on another thread. The entry is also put under the thread in
 * tls_calls, where the nested socket syscall writes its socket. Returns
 * come from uprobes on each RET instruction (a uretprobe would corrupt
 * the goroutine's movable stack).
 */
#define GO_MAX_CALLS 16384	/* goroutines inside a Go TLS call */

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, GO_MAX_CALLS);
	__type(key, __u64);
	__type(value, struct xk_tls_call);
} go_calls SEC(".maps");

static __always_inline int go_enter(struct pt_regs *ctx, enum xk_tls_fn fn)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 g = ctx->r14;
	struct xk_tls_call c;

	if (!xk_is_traced_tgid(t->tgid))
		return 0;
	c = new_call(ctx, ctx->ax, ctx->bx, 0, fn);
	bpf_map_update_elem(&go_calls, &g, &c, BPF_ANY);
	tls_call_begin(t, &c);
	return 0;
}

SEC("uprobe/go_conn_write")
int BPF_KPROBE(go_write_enter)
{
	return go_enter(ctx, XP_TLS_FN_WRITE);
}

SEC("uprobe/go_conn_read")
int BPF_KPROBE(go_read_enter)
{
	return go_enter(ctx, XP_TLS_FN_READ);
}

SEC("uprobe/go_conn_ret")
int BPF_KPROBE(go_rw_ret)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 g = ctx->r14;
	long n = (long)ctx->ax;
	struct xk_tls_call c, *cp = bpf_map_lookup_elem(&go_calls, &g), *tc;

	if (!cp)
		return 0;
	c = *cp;
	bpf_map_delete_elem(&go_calls, &g);
	tc = tls_call_of(t);
	if (tc && tc->ssl == c.ssl && tc->call_ns == c.call_ns) {
		c.sock_id = tc->sock_id;	/* still on the thread it entered on */
		c.fd = tc->fd;
		tls_call_end(tc);
	}
	return call_finish(t, &c, n > 0 ? (__u64)n : 0);
}

/*
 * rustls (userspace/locate/rustls.h). Both located functions take the
 * CommonState in rdi. Its address is no id (a Rust value moves: hyper
 * moves the connection into its task after the HTTP/2 preface); the id is
 * the address of the record layer's boxed message encrypter, a heap
 * object that stays put, read at the offset the locator found in the
 * CommonState (the uprobe's cookie >> 16, plus 1; 0: the address).
 */
static __always_inline __u64 rustls_conn(struct pt_regs *ctx)
{
	__u64 self = PT_REGS_PARM1(ctx), off = bpf_get_attach_cookie(ctx) >> 16, id = 0;

	if (off && !bpf_probe_read_user(&id, sizeof(id), (void *)(self + off - 1)) && id)
		return id;
	return self;
}

/*
 * CommonState::send_appdata_encrypt(&mut self, &[u8], Limit) -> usize:
 * SSL_write's shape (buffer in rsi, length in rdx, bytes taken in rax at
 * return: ssl_rw_exit).
 */
SEC("uprobe/rustls_send_appdata")
int BPF_KPROBE(rustls_write_enter)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct xk_tls_call c;

	if (!xk_is_traced_tgid(t->tgid))
		return 0;
	c = new_call(ctx, rustls_conn(ctx), PT_REGS_PARM2(ctx), 0, XP_TLS_FN_WRITE);
	tls_call_begin(t, &c);
	return 0;
}

/*
 * CommonState::take_received_plaintext(&mut self, Payload): each
 * decrypted application-data record as it joins the received-plaintext
 * queue, complete at entry (no return probe). rsi points at the record's
 * Vec<u8>: {ptr, cap, len} as rustc 1.63 lays it out, {cap, ptr, len} in
 * later ones, so the pointer is the larger of the first two words and the
 * length the third, never above the capacity. rustls does no I/O: the
 * socket is the thread's last receive (it decrypts what it just read).
 */
SEC("uprobe/rustls_take_plaintext")
int BPF_KPROBE(rustls_read_enter)
{
	struct xk_tls_call c;
	__u64 w[3], ptr, cap;

	if (!xk_traced() || bpf_probe_read_user(w, sizeof(w), (void *)PT_REGS_PARM2(ctx)))
		return 0;
	ptr = w[0] > w[1] ? w[0] : w[1];
	cap = w[0] > w[1] ? w[1] : w[0];
	if (w[2] > cap)
		return 0;
	c = new_call(ctx, rustls_conn(ctx), ptr, 0, XP_TLS_FN_READ);
	return call_finish(bpf_get_current_task_btf(), &c, w[2]);
}
