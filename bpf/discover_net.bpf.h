/* SPDX-License-Identifier: MIT */
/*
 * discover_net.bpf.h - network discovery for the daemon (BPF only; sock.h):
 * an untraced process whose TCP connection opens with a TLS ClientHello
 * naming a host of `discover_hosts` (exact, or under a `*.` rule), or with
 * a plaintext HTTP request to a path of `discover_paths`, becomes traced in
 * the kernel before its send returns. Only a connection's first send is examined (one LRU lookup for
 * every later send of an untraced process); the bytes are parsed here and
 * never leave the kernel: a match writes one small XP_EV_SOCK_DISCOVER
 * record, anything else only counts (discover_stats). sock.bpf.c calls
 * discover_send() from both of its hook sets; the request-line matcher and
 * the adoption are discover_path.bpf.h's (shared with tls.bpf.c).
 */
#ifndef XPERF_BPF_DISCOVER_NET_BPF_H
#define XPERF_BPF_DISCOVER_NET_BPF_H

#include "common.bpf.h"
#include "discover_path.bpf.h"
#include "sock.h"
#include "sock_emit.bpf.h"

#define HELLO_EXTS_MAX 32	/* extensions walked looking for server_name */
#define BE16(b, o) (AT(b, o) << 8 | AT(b, (o) + 1))

/* On in the daemon only (xpc_opts.discover_net). */
const volatile bool discover_net = false;

/* Host rules, exact and `*.` suffixes (struct xk_host_key, bpf/sock.h). */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, DISCOVER_RULES_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct xk_host_key);
	__type(value, __u8);
} discover_hosts SEC(".maps");

/* Connections whose first send was examined (key: sock_id). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u8);
} discover_seen SEC(".maps");

/*
 * c lowercased, without a branch: one per byte of a name would multiply
 * the verifier's states. t = c - 'A' is in [0, 26) for an uppercase letter:
 * then both ~t and t - 26 are negative.
 */
static __always_inline char lower(__u32 c)
{
	__s64 t = (__s64)c - 'A';

	return (char)(c + ((((__u64)(~t & (t - 26))) >> 63) << 5));
}

/* Where the server name lies in the scratch's bytes (bpf_loop's context). */
struct sni_at {
	__u32 at, len;
};

/*
 * bpf_loop body: byte j of the server name, lowercased, into the name and,
 * reversed, into the host key (a callback is verified once, where a loop
 * bounded by the name's length would be verified per length).
 */
static long copy_sni(__u32 j, struct sni_at *n)
{
	__u32 zero = 0;
	struct discover_scratch *s = bpf_map_lookup_elem(&discover_heap, &zero);
	char c;

	if (!s || j >= n->len || j >= XP_DISCOVER_NAME - 1)
		return 1;
	barrier_var(j);	/* keep the masks below: the verifier sees no bound on a copy of j */
	c = lower(AT(s->buf, n->at + j));
	s->name.s[j & (XP_DISCOVER_NAME - 1)] = c;
	s->host.rname[(n->len - 1 - j) & (XP_DISCOVER_NAME - 1)] = c;
	return 0;
}

/*
 * The server name of the ClientHello in the scratch's first n bytes,
 * lowercased, into its name and, reversed, its host key: 0, or -1 when
 * absent, cut off or longer than a rule can be. Offsets are masked for the
 * verifier and checked against n for the truth.
 */
static __always_inline int hello_sni(struct discover_scratch *s, __u32 n)
{
	const __u8 *b = s->buf;
	__u32 off = 43, type, len;	/* record 5 + handshake 4 + version 2 + random 32 */
	struct sni_at at = {};

	if (off + 1 > n)
		return -1;
	off += 1 + AT(b, off);		/* session id */
	if (off + 2 > n)
		return -1;
	off += 2 + BE16(b, off);	/* cipher suites */
	if (off + 1 > n)
		return -1;
	off += 1 + AT(b, off) + 2;	/* compression methods, extensions' length */
	for (int i = 0; i < HELLO_EXTS_MAX; i++) {
		if (off + 4 > n)
			return -1;
		type = BE16(b, off);
		len = BE16(b, off + 2);
		if (type != 0) {
			off += 4 + len;
			continue;
		}
		/* server_name: list length 2, name type 1, name length 2, name */
		if (off + 9 > n)
			return -1;
		len = BE16(b, off + 7);
		if (!len || len >= XP_DISCOVER_NAME || off + 9 + len > n)
			return -1;
		at = (struct sni_at){ off + 9, len };
		bpf_loop(XP_DISCOVER_NAME - 1, copy_sni, &at, 0);
		s->host.prefixlen = XP_DISCOVER_NAME * 8;
		return 0;
	}
	return -1;
}

/* What the first bytes name, by kind: 0 (nothing a rule can match) or enum xk_discover_kind. */
static __always_inline __u32 discover_parse(struct discover_scratch *s, __u32 n)
{
	if (n > 5 && s->buf[0] == 0x16 && s->buf[5] == 0x01) {
		dstat(XP_DSTAT_HELLOS);
		if (!hello_sni(s, n))
			return bpf_map_lookup_elem(&discover_hosts, &s->host) ? XP_DISCOVER_HOST : 0;
		dstat(XP_DSTAT_NO_SNI);
		return 0;
	}
	return discover_path_rule(s, n) ? XP_DISCOVER_PATH : 0;
}

/* The current process joins the traced set as a root and says why. */
static __always_inline bool discover_trace(struct sock *sk, __u64 id, __u32 kind,
					   const struct discover_name *name)
{
	struct xk_sock_discover *e;

	if (!discover_join(kind, name, id, &e))
		return false;
	if (e) {
		read_tuple(sk, &e->tuple);
		bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);	/* the daemon probes it at once */
	}
	return true;
}

/*
 * A send of `sent` bytes (an upper bound at syscall entry) by an untraced
 * process on sk: true when this made the process traced.
 */
static __always_inline bool discover_send(struct sock *sk, __u64 id, const struct sock_call *p,
					  __u64 sent)
{
	struct discover_scratch *s;
	__u64 n = sent, src;
	__u32 zero = 0, kind;
	__u8 one = 1;

	if (bpf_map_lookup_elem(&discover_seen, &id) ||
	    bpf_map_update_elem(&discover_seen, &id, &one, BPF_NOEXIST))
		return false;
	dstat(XP_DSTAT_CONNS);
	s = bpf_map_lookup_elem(&discover_heap, &zero);
	src = send_src(p, &n);
	if (!s || !src) {
		dstat(XP_DSTAT_UNREAD);
		return false;
	}
	barrier_var(n);
	if (n > XP_SOCK_PREFIX)
		n = XP_SOCK_PREFIX;
	if (bpf_probe_read_user(s->buf, n, (void *)src)) {
		dstat(XP_DSTAT_UNREAD);
		return false;
	}
	__builtin_memset(&s->name, 0, sizeof(s->name));
	__builtin_memset(&s->host, 0, sizeof(s->host));
	kind = discover_parse(s, n);
	return kind && discover_trace(sk, id, kind, &s->name);
}

#endif /* XPERF_BPF_DISCOVER_NET_BPF_H */
