// SPDX-License-Identifier: MIT
/*
 * proc.bpf.c - the traced process tree: fork/clone, exec, exit.
 *
 * sched_process_fork runs in the parent after copy_process() and before
 * wake_up_new_task(), so a child of a traced process enters `traced` before
 * its first instruction: children and grandchildren (tool calls) are traced
 * with no userspace round trip. Exit is reported once per process, by its
 * last thread (signal->live reached 0), with the CPU time of all threads;
 * the process then leaves `traced`, so a reused pid is not traced by mistake.
 *
 * Each hook is a static handler with two 2-line wrappers: tp_btf (typed
 * arguments, cheapest) and raw_tp for kernels without it; userspace
 * disables one of the pair with bpf_program__set_autoload().
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "common.bpf.h"
#include "proc.h"

#define PAGE_KB 4

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/*
 * Report the exec of every process, traced or not (XP_EXEC_UNTRACED): the
 * daemon's discovery (userspace/daemon/daemon.c) matches them against its rules.
 * Only the exec: nothing else of an untraced process reaches the ring.
 */
const volatile bool exec_untraced = false;

/*
 * Names (comm after exec: the file's basename, 15 bytes) that make an
 * untraced process a traced root right at its exec, before its first
 * instruction: the daemon's `exe` rules without wildcards. A process that
 * lives a millisecond is then traced whole, with no userspace round trip.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, char[XP_COMM_LEN]);
	__type(value, __u8);
} discover_comm SEC(".maps");

/* struct xk_exec is 4 KiB: built here, not on the 512-byte stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xk_exec);
} exec_heap SEC(".maps");

static int handle_fork(struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	struct xk_traced *pt = xk_traced_tgid(ptgid);
	bool thread = ctgid == ptgid;
	struct xk_fork *e;

	if (!pt)
		return 0;
	if (!thread) {
		struct xk_traced ct = {
			.depth = pt->depth + 1,
			.root_tgid = pt->root_tgid,
			.start_ns = BPF_CORE_READ(child, start_time),
		};

		if (xk_trace(ctgid, &ct, BPF_ANY))
			xk_count_drop(XP_EV_NONE);
	}
	e = xk_reserve(XP_EV_FORK, sizeof(*e));
	if (!e)
		return 0;
	xk_fill_hdr(&e->hdr, XP_EV_FORK, sizeof(*e), parent);
	e->child_tgid = ctgid;
	e->child_tid = BPF_CORE_READ(child, pid);
	e->child_start_ns = xk_start_ns(child);
	e->flags = thread ? XP_FORK_THREAD : 0;
	e->depth = thread ? pt->depth : pt->depth + 1;
	BPF_CORE_READ_STR_INTO(&e->comm, child, comm);
	/*
	 * A new process gets its per-process uprobes (cuda, --tls-per-process)
	 * from this record, racing its first calls: wake the consumer now, as
	 * for an exec (xk_output), not at its next poll (100 ms). A thread
	 * shares its process's probes: batched.
	 */
	bpf_ringbuf_submit(e, thread ? xk_ring_wakeup(sizeof(*e)) : BPF_RB_FORCE_WAKEUP);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(fork_btf, struct task_struct *parent, struct task_struct *child)
{
	return handle_fork(parent, child);
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(fork_raw, struct task_struct *parent, struct task_struct *child)
{
	return handle_fork(parent, child);
}

/* Copy argv from the new image's stack (resident: exec just wrote it). */
static __u32 read_args(struct xk_exec *e, __u32 off, struct task_struct *task)
{
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	unsigned long start = BPF_CORE_READ(mm, arg_start);
	__u64 len = BPF_CORE_READ(mm, arg_end) - start;

	if (len > XP_ARGS_MAX) {
		len = XP_ARGS_MAX;
		e->flags |= XP_EXEC_ARGS_TRUNC;
	}
	if (bpf_probe_read_user(e->data + (off & (XP_FILENAME_MAX * 2 - 1)), len,
				(void *)start))
		return 0;
	return len;
}

/*
 * Walk cwd up to the process's root (fs->root, so a container's cwd is
 * relative to its own root), crossing mount points; components are
 * written leaf first (reversed in userspace: no backwards writes here).
 */
static __u32 read_cwd(struct xk_exec *e, __u32 off, struct task_struct *task)
{
	struct fs_struct *fs = BPF_CORE_READ(task, fs);
	struct dentry *d = BPF_CORE_READ(fs, pwd.dentry);
	struct vfsmount *vm = BPF_CORE_READ(fs, pwd.mnt);
	struct dentry *root_d = BPF_CORE_READ(fs, root.dentry);
	struct vfsmount *root_m = BPF_CORE_READ(fs, root.mnt);
	struct mount *mnt = container_of(vm, struct mount, mnt);
	__u64 used = 0;	/* 64-bit: the verifier must see 512 - used >= 0 */

	for (int i = 0; i < XP_CWD_DEPTH * 2; i++) {
		struct dentry *parent = BPF_CORE_READ(d, d_parent);
		struct mount *mp;
		long n;

		if (d == root_d && vm == root_m)
			return used;
		if (d == BPF_CORE_READ(vm, mnt_root) || d == parent) {
			mp = BPF_CORE_READ(mnt, mnt_parent);
			if (mp == mnt) {
				e->flags |= XP_EXEC_CWD_UNREACHABLE;
				return used;
			}
			d = BPF_CORE_READ(mnt, mnt_mountpoint);
			mnt = mp;
			vm = &mp->mnt;
			continue;
		}
		if (used >= XP_CWD_MAX)
			break;
		n = bpf_probe_read_kernel_str(e->data + ((off + used) & 2047), XP_CWD_MAX - used,
					      BPF_CORE_READ(d, d_name.name));
		if (n <= 0)
			break;
		used += n;
		d = parent;
	}
	e->flags |= XP_EXEC_CWD_TRUNC;
	return used;
}

static int handle_exec(struct task_struct *task, struct linux_binprm *bprm)
{
	__u32 zero = 0, off;
	struct xk_exec *e;
	bool on = xk_traced() != NULL, discovered = false;
	__u64 size;
	long n;

	if (!on && !exec_untraced)
		return 0;
	e = bpf_map_lookup_elem(&exec_heap, &zero);
	if (!e)
		return 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	if (!on && bpf_map_lookup_elem(&discover_comm, e->comm)) {
		__u32 tgid = BPF_CORE_READ(task, tgid);
		struct xk_traced root = { .root_tgid = tgid, .start_ns = xk_start_ns(task) };

		discovered = on = !xk_trace(tgid, &root, BPF_NOEXIST);
		if (!discovered)
			xk_count_drop(XP_EV_NONE);
	}
	e->ppid = BPF_CORE_READ(task, real_parent, tgid);
	e->uid = (__u32)bpf_get_current_uid_gid();
	e->cgroup_id = bpf_get_current_cgroup_id();
	e->flags = discovered ? XP_EXEC_DISCOVERED : on ? 0 : XP_EXEC_UNTRACED;
	/* Read here, race-free: /proc/PID/cgroup may be gone when userspace looks. */
	if (bpf_probe_read_kernel_str(e->cgroup, sizeof(e->cgroup),
				      BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, name)) < 0)
		e->cgroup[0] = '\0';
	n = bpf_probe_read_kernel_str(e->data, XP_FILENAME_MAX, BPF_CORE_READ(bprm, filename));
	if (n <= 0) {
		e->data[0] = '\0';
		n = 1;
	}
	off = n;
	e->filename_len = off;
	e->args_len = read_args(e, off, task);
	off += e->args_len;
	e->cwd_len = read_cwd(e, off, task);
	off += e->cwd_len;
	size = offsetof(struct xk_exec, data) + off;
	if (size > sizeof(*e))
		return 0;
	xk_fill_hdr(&e->hdr, XP_EV_EXEC, size, task);
	xk_output(e, XP_EV_EXEC, size);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(exec_btf, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	return handle_exec(p, bprm);
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(exec_raw, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	return handle_exec(p, bprm);
}

static int handle_exit(struct task_struct *task)
{
	__u32 tgid = BPF_CORE_READ(task, tgid);
	struct signal_struct *sig;
	struct xk_exit *e;

	if (!xk_traced_tgid(tgid))
		return 0;
	sig = BPF_CORE_READ(task, signal);
	/* do_exit() decremented live before this tracepoint: 0 = last thread. */
	if (BPF_CORE_READ(sig, live.counter) != 0)
		return 0;
	e = xk_reserve(XP_EV_EXIT, sizeof(*e));
	if (e) {
		xk_fill_hdr(&e->hdr, XP_EV_EXIT, sizeof(*e), task);
		e->ppid = BPF_CORE_READ(task, real_parent, tgid);
		e->exit_code = BPF_CORE_READ(task, exit_code);
		/* Threads already gone were folded into signal_struct by __exit_signal(). */
		e->cpu_ns = BPF_CORE_READ(sig, sum_sched_runtime) +
			    BPF_CORE_READ(task, se.sum_exec_runtime);
		e->utime_ns = BPF_CORE_READ(sig, utime) + BPF_CORE_READ(task, utime);
		e->stime_ns = BPF_CORE_READ(sig, stime) + BPF_CORE_READ(task, stime);
		e->maxrss_kb = BPF_CORE_READ(sig, maxrss) * PAGE_KB;
		BPF_CORE_READ_STR_INTO(&e->comm, task, comm);
		xk_submit(e);
	}
	xk_untrace(tgid);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(exit_btf, struct task_struct *p)
{
	return handle_exit(p);
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(exit_raw, struct task_struct *p)
{
	return handle_exit(p);
}
