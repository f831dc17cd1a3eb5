/* SPDX-License-Identifier: MIT */
/*
 * map_watch.bpf.h - announce the files a traced process maps executable
 * after its exec (BPF only): a library from outside the standard
 * directories (a wheel's bundled libssl or libcudart, a venv, an agent's
 * own copy) is probed by userspace (the tls and cuda modules) when
 * XP_EV_MAP_EXEC (tls.h) arrives. Called by sock.bpf.c from whichever
 * hooks it runs on: with the raw syscall hooks, a branch of its
 * tp_btf/sys_exit for mmap (a compare; a program of its own on sys_exit
 * would cost every syscall of every process one more program call,
 * bench/ebpf: about 80 ns); with the socket hooks, from
 * mmap_lock:mmap_lock_released (write), which only mmap, munmap, mprotect,
 * brk and the like reach. This kernel has no kprobes and no trampolines,
 * and syscalls:sys_exit_mmap needs tracefs.
 */
#ifndef XPERF_BPF_MAP_WATCH_BPF_H
#define XPERF_BPF_MAP_WATCH_BPF_H

#include "common.bpf.h"
#include "tls.h"

#define NR_MMAP 9		/* x86-64 */
#define PROT_EXEC 4
#define MAP_ANONYMOUS 0x20
#define MAX_ERRNO 4095

/*
 * An executable file a process mapped. Per process, not per file: if the
 * first process to map a file is gone before userspace looked, the next
 * one still announces it (userspace skips files it examined already).
 */
struct map_key {
	__u64 ino;
	__u64 start_ns;	/* tells a reused pid apart */
	__u32 dev;	/* kernel encoding (MAJOR << 20 | MINOR) */
	__u32 tgid;
};

/* Files already announced per process: ld.so maps a library twice, loops dlopen. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct map_key);
	__type(value, __u8);
} maps_seen SEC(".maps");

/* bpf_find_vma callback: the file behind the new mapping. */
static long vma_file(struct task_struct *task, struct vm_area_struct *vma, struct map_key *k)
{
	struct inode *inode = BPF_CORE_READ(vma, vm_file, f_inode);

	k->ino = BPF_CORE_READ(inode, i_ino);
	k->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	return 0;
}

/*
 * Announce k's file, mapped executable at addr (0: not known) by the
 * current process, once per process and file.
 */
static __always_inline int map_announce(struct map_key *k, __u64 addr)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct xk_map_exec *e;
	__u8 one = 1;

	k->tgid = bpf_get_current_pid_tgid() >> 32;
	k->start_ns = xk_start_ns(task);
	if (k->ino && bpf_map_update_elem(&maps_seen, k, &one, BPF_NOEXIST))
		return 0;
	e = xk_reserve(XP_EV_MAP_EXEC, sizeof(*e));
	if (!e) {
		bpf_map_delete_elem(&maps_seen, k);	/* the next mapping retries */
		return 0;
	}
	xk_fill_hdr_cur(&e->hdr, XP_EV_MAP_EXEC, sizeof(*e));
	e->addr = addr;
	e->ino = k->ino;
	e->dev_major = k->dev >> 20;
	e->dev_minor = k->dev & 0xfffff;
	/*
	 * Forced: the default wakes the consumer only if it has read all
	 * before this record, and batched data records (xk_submit) may be
	 * pending; the sooner the probes, the fewer calls go unseen.
	 */
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	return 0;
}

/* mmap(2)'s prot and flags (user registers at syscall entry) ask for a file mapped executable. */
static __always_inline bool maps_file_exec(struct pt_regs *regs)
{
	return (BPF_CORE_READ(regs, dx) & PROT_EXEC) && !(BPF_CORE_READ(regs, r10) & MAP_ANONYMOUS);
}

/* At the return of mmap(2) = ret (raw syscall hooks): the file behind the new mapping. */
static __always_inline int map_watch(struct pt_regs *regs, long ret)
{
	struct map_key k = {};

	if ((unsigned long)ret >= -MAX_ERRNO || !maps_file_exec(regs) || !xk_traced())
		return 0;
	bpf_find_vma(bpf_get_current_task_btf(), ret, vma_file, &k, 0);
	return map_announce(&k, ret);
}

/*
 * At the release of the mmap lock held for writing inside mmap(2) by a
 * traced process (socket hooks: no syscall hook is loaded; the caller
 * checked the process, first: this runs at every release on the machine):
 * the mapping is in place but its address is not known yet, so the file
 * comes from mmap's fd argument. A failed mmap is announced too; the
 * rescan then finds nothing new.
 */
static __always_inline int map_watch_fd(struct pt_regs *regs)
{
	struct file *f;
	struct map_key k = {};

	if (BPF_CORE_READ(regs, orig_ax) != NR_MMAP || !maps_file_exec(regs))
		return 0;
	f = fd_file(BPF_CORE_READ(regs, r8));
	if (!f)
		return 0;
	k.ino = BPF_CORE_READ(f, f_inode, i_ino);
	k.dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
	return map_announce(&k, 0);
}

#endif /* XPERF_BPF_MAP_WATCH_BPF_H */
