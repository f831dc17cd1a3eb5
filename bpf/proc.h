/* SPDX-License-Identifier: MIT */
/*
 * proc.h - records of proc.bpf.c: process creation, exec and exit of the
 * traced process tree (the target and every descendant).
 */
#ifndef XPERF_BPF_PROC_H
#define XPERF_BPF_PROC_H

#define XP_FILENAME_MAX 256	/* bytes of the exec'd path, NUL included */
#define XP_ARGS_MAX 1024	/* bytes of argv (NUL-separated) kept */
#define XP_CWD_MAX 512		/* bytes of cwd components kept */
#define XP_CWD_DEPTH 16		/* directory levels walked */
#define XP_CGROUP_LEN 128	/* cgroup v2 leaf name: "cri-containerd-<64 hex>.scope" is 89 */
/* Scratch for the exec body: offsets masked with 2047 + reads <= 1024 fit. */
#define XP_EXEC_DATA_MAX 4096

/* struct xk_fork.flags */
enum xk_fork_flags {
	XP_FORK_THREAD = 1,	/* clone(CLONE_THREAD): a new thread, same tgid */
};

/* XP_EV_FORK; hdr names the parent (the task that called fork/clone). */
struct xk_fork {
	struct xk_hdr hdr;
	__u32 child_tgid;
	__u32 child_tid;
	__u64 child_start_ns;	/* new process's start time (== hdr.start_ns for a thread) */
	__u32 flags;		/* enum xk_fork_flags */
	__u32 depth;		/* child's depth below the userspace-added root */
	char comm[XP_COMM_LEN];
};

/* struct xk_exec.flags */
enum xk_exec_flags {
	XP_EXEC_ARGS_TRUNC = 1,	/* argv longer than XP_ARGS_MAX */
	XP_EXEC_CWD_TRUNC = 2,	/* cwd deeper than XP_CWD_DEPTH or longer than XP_CWD_MAX */
	XP_EXEC_CWD_UNREACHABLE = 4, /* walk left the process's root (chroot'd away) */
	XP_EXEC_UNTRACED = 8,	/* not traced: reported for discovery (exec_untraced) only */
	XP_EXEC_DISCOVERED = 16, /* traced from this exec on: its comm is in discover_comm */
};

/*
 * XP_EV_EXEC, variable size: data holds, back to back,
 *   filename (filename_len bytes, NUL included),
 *   argv     (args_len bytes, each argument NUL-terminated),
 *   cwd      (cwd_len bytes: path components leaf first, each NUL-terminated,
 *             relative to the process's root: "b\0a\0" is "/a/b"; empty is "/").
 * hdr.size = offsetof(struct xk_exec, data) + filename_len + args_len + cwd_len.
 */
struct xk_exec {
	struct xk_hdr hdr;
	__u32 ppid;		/* real parent's tgid */
	__u32 uid;
	__u64 cgroup_id;	/* cgroup v2 id of the process */
	__u16 filename_len;
	__u16 args_len;
	__u16 cwd_len;
	__u16 flags;		/* enum xk_exec_flags */
	char comm[XP_COMM_LEN];	/* comm after exec */
	char cgroup[XP_CGROUP_LEN]; /* leaf name of its cgroup v2 (container id source) */
	char data[XP_EXEC_DATA_MAX];
};

/*
 * XP_EV_EXIT: the last thread of process hdr.tgid exited. hdr.tid is that
 * thread. Duration = hdr.ts_ns - hdr.start_ns.
 */
struct xk_exit {
	struct xk_hdr hdr;
	__u32 ppid;
	__u32 exit_code;	/* wait status: (code << 8) | signal | 0x80 core */
	__u64 cpu_ns;		/* on-CPU time of all its threads (sum_exec_runtime, precise) */
	__u64 utime_ns;		/* user time of all its threads (tick based) */
	__u64 stime_ns;		/* system time of all its threads (tick based) */
	__u64 maxrss_kb;	/* peak resident set size */
	char comm[XP_COMM_LEN];
};

#endif /* XPERF_BPF_PROC_H */
