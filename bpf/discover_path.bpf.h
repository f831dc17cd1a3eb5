/* SPDX-License-Identifier: MIT */
/*
 * discover_path.bpf.h - the daemon's `path` rules in the kernel (BPF only;
 * sock.h): the HTTP/1.x request line's path against `discover_paths`, and
 * what a match does (the process joins the traced set as a root and one
 * XP_EV_SOCK_DISCOVER record says why). One matcher for both places a
 * request is seen: the first send of a plaintext TCP connection
 * (discover_net.bpf.h, in sock.bpf.c) and an untraced process's SSL write
 * (tls.bpf.c). Both objects share `discover_paths` and `discover_stats`
 * (bpf_map__reuse_fd: userspace/tls_probes.c).
 */
#ifndef XPERF_BPF_DISCOVER_PATH_BPF_H
#define XPERF_BPF_DISCOVER_PATH_BPF_H

#include "common.bpf.h"
#include "sock.h"

#define EEXIST 17
#define DISCOVER_RULES_MAX 256
#define METHOD_MAX 8		/* "OPTIONS " is the longest HTTP method */
/* Enough of a request to hold its line up to the longest path a rule can name. */
#define DISCOVER_LINE_MAX (METHOD_MAX + 1 + XP_DISCOVER_NAME)
#define AT(b, o) ((__u32)(b)[(o) & (XP_SOCK_PREFIX - 1)])

struct discover_name {
	char s[XP_DISCOVER_NAME];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DISCOVER_RULES_MAX);
	__type(key, struct discover_name);
	__type(value, __u8);
} discover_paths SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XP_DSTAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} discover_stats SEC(".maps");

/*
 * The first bytes of the send, and the name read from them (zero-padded: a
 * map key). Shared per CPU: on preempt=full or lazy kernels another untraced
 * SSL write on this CPU can preempt tls.bpf.c's uprobe between the read and
 * the match (copy_direct there says why), so a rule may be matched against
 * the other call's bytes: a wrong or missed discovery, never a record.
 */
struct discover_scratch {
	__u8 buf[XP_SOCK_PREFIX + XP_DISCOVER_NAME];
	struct discover_name name;
	struct xk_host_key host;	/* a server name, reversed (discover_net.bpf.h) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct discover_scratch);
} discover_heap SEC(".maps");

static __always_inline void dstat(__u32 i)
{
	__u64 *n = bpf_map_lookup_elem(&discover_stats, &i);

	if (n)
		*n += 1;
}

/* The path of the HTTP request line in b ("POST /v1/messages?x HTTP/1.1"): 0 or -1. */
static __always_inline int request_path(const __u8 *b, __u32 n, struct discover_name *name)
{
	__u32 off = 0, c;

	for (; off < METHOD_MAX && off < n; off++) {
		c = AT(b, off);
		if (c == ' ')
			break;
		if (c < 'A' || c > 'Z')
			return -1;
	}
	if (!off || off >= METHOD_MAX || off + 1 >= n || AT(b, off + 1) != '/')
		return -1;
	off++;
	for (__u32 i = 0; i < XP_DISCOVER_NAME - 1; i++) {
		if (off + i >= n)
			return -1;
		c = AT(b, off + i);
		if (c == ' ' || c == '?')
			return 0;
		name->s[i & (XP_DISCOVER_NAME - 1)] = c;
	}
	return -1;
}

/* Whether the n bytes of s->buf open an HTTP request to a `path` rule's path (in s->name). */
static __always_inline bool discover_path_rule(struct discover_scratch *s, __u32 n)
{
	if (request_path(s->buf, n, &s->name))
		return false;
	dstat(XP_DSTAT_REQUESTS);
	return bpf_map_lookup_elem(&discover_paths, &s->name) != NULL;
}

/*
 * The current process joins the traced set as a root: false when it could
 * not. *rec: its XP_EV_SOCK_DISCOVER record, filled but for the tuple, for
 * the caller to submit; NULL when another thread was first or the ring is full.
 */
static __always_inline bool discover_join(__u32 kind, const struct discover_name *name,
					  __u64 sock_id, struct xk_sock_discover **rec)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u32 tgid = t->tgid;
	struct xk_traced root = { .root_tgid = tgid, .start_ns = xk_start_ns(t) };
	struct xk_sock_discover *e;
	long err = xk_trace(tgid, &root, BPF_NOEXIST);

	*rec = NULL;
	if (err == -EEXIST)	/* another thread of it was first */
		return true;
	if (err) {
		xk_count_drop(XP_EV_NONE);
		return false;
	}
	dstat(XP_DSTAT_MATCHED);
	e = xk_reserve(XP_EV_SOCK_DISCOVER, sizeof(*e));
	if (!e)
		return true;
	xk_fill_hdr(&e->hdr, XP_EV_SOCK_DISCOVER, sizeof(*e), t);
	e->sock_id = sock_id;
	e->kind = kind;
	e->pad = 0;
	__builtin_memcpy(e->name, name->s, sizeof(e->name));
	*rec = e;
	return true;
}

#endif /* XPERF_BPF_DISCOVER_PATH_BPF_H */
