// SPDX-License-Identifier: MIT
/*
 * tls_floor.bpf.c - the floor of a plaintext capture on a uprobe +
 * uretprobe pair, for floor.sh: "empty" programs (what the pair costs
 * before a program does anything: the traps, the dispatch, the calls),
 * and "capture" ones that do the least a capture must (the entry keeps the
 * buffer pointer in task storage; the return copies up to CAPTURE_BYTES of
 * it into a fixed-size ring record). No filter, no connection state, no
 * socket, no clock: what xperf's programs do beyond this is what they
 * cost above the floor. Two more returns write the record at its exact
 * size, as xperf's must (its readers check the size): built in per-CPU
 * scratch and copied into the ring (xperf before bpf_probe_read_user_dynptr,
 * its fallback), and reserved at that size with the bytes read straight in
 * (xperf on kernels with the kfunc). tls_floor.c loads one set.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tls_floor.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} bufs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} ring SEC(".maps");

SEC("uprobe")
int BPF_KPROBE(empty_enter)
{
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(empty_exit)
{
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(capture_enter, void *ssl, const void *buf)
{
	__u64 *b = bpf_task_storage_get(&bufs, bpf_get_current_task_btf(), 0,
					BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (b)
		*b = (__u64)buf;
	return 0;
}

/* The buffer of the call returning ret (capture_enter's), cleared; *n: bytes to copy. */
static __always_inline __u64 take_buf(int ret, __u64 *n)
{
	__u64 *b = bpf_task_storage_get(&bufs, bpf_get_current_task_btf(), 0, 0);
	__u64 buf;

	if (!b || !*b)
		return 0;
	buf = *b;
	*b = 0;
	*n = ret > 0 ? ret : 0;
	if (*n > CAPTURE_BYTES)
		*n = CAPTURE_BYTES;
	return buf;
}

/* The floor: a fixed-size record reserved in the ring, the bytes read into it. */
SEC("uretprobe")
int BPF_KRETPROBE(capture_exit, int ret)
{
	struct floor_rec *r;
	__u64 n, buf = take_buf(ret, &n);

	if (!buf)
		return 0;
	r = bpf_ringbuf_reserve(&ring, sizeof(*r), 0);
	if (!r)
		return 0;
	barrier_var(n);	/* clamped in the register the copy takes */
	if (n > CAPTURE_BYTES)
		n = CAPTURE_BYTES;
	r->len = n;
	if (bpf_probe_read_user(r->data, n, (void *)buf))
		r->len = 0;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct floor_rec);
} scratch SEC(".maps");

/* A record of its exact size as xperf wrote it before: built in per-CPU scratch, then copied. */
SEC("uretprobe")
int BPF_KRETPROBE(scratch_exit, int ret)
{
	__u32 zero = 0;
	struct floor_rec *r = bpf_map_lookup_elem(&scratch, &zero);
	__u64 n, buf = take_buf(ret, &n);

	if (!buf || !r)
		return 0;
	barrier_var(n);
	if (n > CAPTURE_BYTES)
		n = CAPTURE_BYTES;
	r->len = n;
	if (bpf_probe_read_user(r->data, n, (void *)buf))
		r->len = n = 0;
	bpf_ringbuf_output(&ring, r, offsetof(struct floor_rec, data) + n, BPF_RB_NO_WAKEUP);
	return 0;
}

extern int bpf_probe_read_user_dynptr(struct bpf_dynptr *dptr, __u32 off, __u32 size,
				      const void *unsafe_ptr) __ksym;

/* A record of its exact size as xperf writes it now: reserved, the bytes read straight in. */
SEC("uretprobe")
int BPF_KRETPROBE(dynptr_exit, int ret)
{
	struct bpf_dynptr dp;
	__u64 n, buf = take_buf(ret, &n);
	__u32 len;

	if (!buf)
		return 0;
	barrier_var(n);
	if (n > CAPTURE_BYTES)
		n = CAPTURE_BYTES;
	len = n;
	if (bpf_ringbuf_reserve_dynptr(&ring, offsetof(struct floor_rec, data) + n, 0, &dp) ||
	    bpf_probe_read_user_dynptr(&dp, offsetof(struct floor_rec, data), n, (void *)buf)) {
		bpf_ringbuf_discard_dynptr(&dp, 0);
		return 0;
	}
	bpf_dynptr_write(&dp, 0, &len, sizeof(len), 0);
	bpf_ringbuf_submit_dynptr(&dp, BPF_RB_NO_WAKEUP);
	return 0;
}
