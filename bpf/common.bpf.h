/* SPDX-License-Identifier: MIT */
/*
 * common.bpf.h - maps and helpers every xperf BPF object shares (BPF only).
 *
 * Each object (proc, sched, tls, sock, cuda...) declares the three shared
 * maps below by including this header; userspace creates them once and
 * calls bpf_map__reuse_fd() on every object before load, so all programs
 * filter on one `traced` set, write into one `events` ring and count their
 * losses in one `drops` array (userspace/maps.c). The declarations must
 * therefore stay identical in every object.
 *
 * Every program starts with xk_traced() (or xk_traced_tgid() for a task
 * that is not current). The fourth shared map, `traced_flags`, makes that
 * cheap for everyone else: one byte per tgid, read with an array lookup
 * the verifier inlines (no call, no hashing), set before a tgid enters
 * `traced` and cleared after it leaves (or when `traced` refuses it), so a
 * clear byte means untraced and the hash is only asked about the traced
 * (bench/ebpf: the scheduler programs run at every context switch of the
 * machine); the hot TLS and socket programs, which need only a yes or no,
 * take the byte's word for it (xk_is_traced_tgid).
 */
#ifndef XPERF_BPF_COMMON_BPF_H
#define XPERF_BPF_COMMON_BPF_H

#include "xperf.h"

/* The traced process tree: tgid -> struct xk_traced. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XP_MAX_TRACED);
	__type(key, __u32);
	__type(value, struct xk_traced);
} traced SEC(".maps");

/* 1 while tgid is in `traced` (xperf.h); mmapped by userspace, which sets it on add. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XP_PID_MAX_LIMIT / XP_FLAGS_PER_ENTRY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct xk_traced_flags);
} traced_flags SEC(".maps");

/* All records, struct xk_hdr first. Size set by userspace (--ring-size). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} events SEC(".maps");

/* Records lost because the ring was full, per record type, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XP_EV_TYPE_MAX);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/* tgid's byte of traced_flags; NULL beyond the map (pid_max raised since: ask the hash). */
static __always_inline __u8 *xk_traced_flag(__u32 tgid)
{
	__u32 i = tgid / XP_FLAGS_PER_ENTRY;
	struct xk_traced_flags *f = bpf_map_lookup_elem(&traced_flags, &i);

	return f ? &f->on[tgid % XP_FLAGS_PER_ENTRY] : NULL;
}

static __always_inline struct xk_traced *xk_traced_tgid(__u32 tgid)
{
	__u8 *on = xk_traced_flag(tgid);

	if (on && !*on)
		return NULL;
	return bpf_map_lookup_elem(&traced, &tgid);
}

/*
 * Whether tgid is traced, where nothing more is needed (the hot TLS and
 * socket programs): its byte alone, no hash lookup (a call, a hash, a
 * bucket walk: ~40 ns a time on the traced thread, twice per SSL_write).
 * The byte is set from just before the hash holds tgid until just after
 * it does not (a failed insert clears it again: xk_trace), so it answers
 * as the hash does but at those two instants. The hash where the map has
 * no byte for tgid.
 */
static __always_inline bool xk_is_traced_tgid(__u32 tgid)
{
	__u8 *on = xk_traced_flag(tgid);

	if (on)
		return *on;
	return bpf_map_lookup_elem(&traced, &tgid) != NULL;
}

/* Put tgid in the traced set (flags: BPF_ANY, BPF_NOEXIST): its byte first. */
static __always_inline long xk_trace(__u32 tgid, struct xk_traced *v, __u64 flags)
{
	__u8 *on = xk_traced_flag(tgid);
	long err;

	if (on)
		*on = 1;
	err = bpf_map_update_elem(&traced, &tgid, v, flags);
	if (err && on && !bpf_map_lookup_elem(&traced, &tgid))
		*on = 0;	/* refused (map full): not traced after all */
	return err;
}

/* Take tgid out of the traced set: its byte last. */
static __always_inline void xk_untrace(__u32 tgid)
{
	__u8 *on = xk_traced_flag(tgid);

	bpf_map_delete_elem(&traced, &tgid);
	if (on)
		*on = 0;
}

/* The traced-set entry of the current process, NULL when not traced. */
static __always_inline struct xk_traced *xk_traced(void)
{
	return xk_traced_tgid(bpf_get_current_pid_tgid() >> 32);
}

/* Count one lost record of this type (per-CPU: no atomics needed). */
static __always_inline void xk_count_drop(__u32 type)
{
	__u64 *n = bpf_map_lookup_elem(&drops, &type);

	if (n)
		*n += 1;
}

/* Start time of task's process: the thread group leader's start_time. */
static __always_inline __u64 xk_start_ns(struct task_struct *task)
{
	return BPF_CORE_READ(task, group_leader, start_time);
}

/*
 * The file behind fd in the current process (t: the current task, from
 * bpf_get_current_task_btf()), or NULL. The task is a trusted BTF pointer:
 * its fields are plain loads; the fd array's slot (a pointer to pointers,
 * untyped for the verifier) takes one probe read.
 */
static __always_inline struct file *fd_file_of(struct task_struct *t, __s32 fd)
{
	struct fdtable *fdt = t->files->fdt;
	struct file *f = NULL;

	if (fd < 0 || (__u32)fd >= fdt->max_fds)
		return NULL;
	bpf_probe_read_kernel(&f, sizeof(f), &fdt->fd[fd]);
	return f;
}

static __always_inline struct file *fd_file(__s32 fd)
{
	return fd_file_of(bpf_get_current_task_btf(), fd);
}

/* Fill a record header about `task` (any task, not only current). */
static __always_inline void xk_fill_hdr(struct xk_hdr *h, __u32 type, __u32 size,
					struct task_struct *task)
{
	h->type = type;
	h->cpu = bpf_get_smp_processor_id();
	h->size = size;
	h->ts_ns = bpf_ktime_get_ns();
	h->tgid = BPF_CORE_READ(task, tgid);
	h->tid = BPF_CORE_READ(task, pid);
	h->start_ns = xk_start_ns(task);
}

/*
 * The same about the current task t (bpf_get_current_task_btf()), without
 * probe reads or more helper calls: its ids and its process's start are
 * plain loads through the trusted BTF pointer (the hot records: TLS data,
 * socket data). Each helper call costs the traced thread a call and a
 * return (a mitigated one in this VM), so the hot programs ask for the task
 * once and read the rest through it (bench/tls/gap.sh).
 */
static __always_inline void xk_fill_hdr_task(struct xk_hdr *h, __u32 type, __u32 size,
					     struct task_struct *t)
{
	h->type = type;
	h->cpu = bpf_get_smp_processor_id();
	h->size = size;
	h->ts_ns = bpf_ktime_get_ns();
	h->tgid = t->tgid;
	h->tid = t->pid;
	h->start_ns = t->group_leader->start_time;
}

static __always_inline void xk_fill_hdr_cur(struct xk_hdr *h, __u32 type, __u32 size)
{
	xk_fill_hdr_task(h, type, size, bpf_get_current_task_btf());
}

/*
 * The consumer's position (plus one) when this object last forced a
 * wakeup: one forced wakeup per object per consumer pass (xk_ring_wakeup).
 */
__u64 xk_woken_cons;

/* The ring's size (fixed once loaded), asked once: a helper call per record less. */
__u64 xk_ring_size;

/*
 * Bytes this object wrote since it last asked the ring how full it is.
 * Updated without atomics: a lost add only delays the next question.
 */
__u64 xk_unasked;

/*
 * Records are submitted without a wakeup: the consumer polls on a timer
 * (100 ms, userspace/capture.c: the bound on a record's delivery delay)
 * and wakes at once for the rare urgent ones (xk_output). Once an eighth
 * of the ring is pending, one record forces a wakeup, and no other until
 * the consumer has read on (its position moved): a forced wakeup is an
 * irq_work, a self-IPI that costs the producing program microseconds in a
 * VM (bench/tls/gap.sh: forcing one per record while the consumer lagged
 * cost the traced SSL_write +5 us). Once woken, the consumer reads until
 * the ring is empty (its poll is level-triggered), so one is enough. Each
 * object has its own xk_woken_cons: at most one wakeup each per pass.
 * The ring is asked how full it is once per 1/64 of it written by this
 * object, not per record: each question is a helper call, a call and a
 * mitigated return on the traced thread (bench/tls/gap.sh), and the
 * wakeup comes at most that much later. size: the record's bytes.
 */
static __always_inline __u64 xk_ring_wakeup(__u64 size)
{
	__u64 cons;

	xk_unasked += size;
	if (xk_unasked < xk_ring_size / 64)
		return BPF_RB_NO_WAKEUP;
	xk_unasked = 0;
	if (!xk_ring_size)
		xk_ring_size = bpf_ringbuf_query(&events, BPF_RB_RING_SIZE);
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) < xk_ring_size / 8)
		return BPF_RB_NO_WAKEUP;
	cons = bpf_ringbuf_query(&events, BPF_RB_CONS_POS) + 1;
	if (xk_woken_cons == cons)
		return BPF_RB_NO_WAKEUP;
	xk_woken_cons = cons;
	return BPF_RB_FORCE_WAKEUP;
}

/* Submit a record from xk_reserve(), its header filled (hdr.size). */
static __always_inline void xk_submit(void *rec)
{
	bpf_ringbuf_submit(rec, xk_ring_wakeup(((struct xk_hdr *)rec)->size));
}

/*
 * Reserve a fixed-size record; on a full ring count the drop and return
 * NULL. The caller fills it and calls xk_submit().
 */
static __always_inline void *xk_reserve(__u32 type, __u32 size)
{
	void *rec = bpf_ringbuf_reserve(&events, size, 0);

	if (!rec)
		xk_count_drop(type);
	return rec;
}

/*
 * Copy a variable-size record built in scratch memory into the ring
 * (bpf_ringbuf_reserve needs a constant size); counts the drop on failure.
 * size must be bounded for the verifier by the caller (masking). These
 * records are rare (exec, SNI) and wake the consumer at once: an exec is
 * when userspace attaches uprobes to the new image (and the daemon filters
 * a new agent in), the sooner the better. Forced: the default wakes only a
 * consumer that has read everything before, and records submitted without
 * a wakeup may be pending (measured: execs read up to a poll, 100 ms, late).
 */
static __always_inline int xk_output(void *rec, __u32 type, __u64 size)
{
	long err = bpf_ringbuf_output(&events, rec, size, BPF_RB_FORCE_WAKEUP);

	if (err)
		xk_count_drop(type);
	return err;
}

#endif /* XPERF_BPF_COMMON_BPF_H */
