/* SPDX-License-Identifier: MIT */
/*
 * xperf.h - the kernel -> userspace ABI shared by every xperf BPF object.
 *
 * Every record in the `events` ring buffer starts with struct xk_hdr; its
 * `type` selects the body and `size` is the length of the whole record, so
 * variable-size records (exec argv, TLS payload chunks) carry only the bytes
 * they use and a consumer can skip a type it does not know. The bodies live
 * in one header per BPF object (proc.h, sched.h, tls.h, sock.h, ...), in the
 * libbpf-tools shape: types and constants only, no includes (vmlinux.h gives
 * __u32/__u64 in BPF, <linux/types.h> in userspace).
 *
 * Clocks: ts_ns is bpf_ktime_get_ns() (CLOCK_MONOTONIC); start_ns is the
 * thread group leader's task->start_time, the same clock, so
 * (tgid, start_ns) names one process even after its pid is reused and
 * ts_ns - start_ns is the process's age.
 */
#ifndef XPERF_BPF_XPERF_H
#define XPERF_BPF_XPERF_H

#define XP_ABI_VERSION 1
#define XP_COMM_LEN 16

/* Record types. Numbers are stable: blocks are reserved per BPF object. */
enum xk_event_type {
	XP_EV_NONE = 0,		/* drops[0]: processes left untraced, `traced` full */
	/* proc.bpf.c (proc.h) */
	XP_EV_FORK = 1,		/* a traced task created a process or thread */
	XP_EV_EXEC = 2,		/* a traced process exec'd: filename, argv, cwd */
	XP_EV_EXIT = 3,		/* the last thread of a traced process exited */
	/* sched.bpf.c (sched.h) */
	XP_EV_SCHED = 8,	/* a traced thread changed scheduler state */
	XP_EV_THREAD_EXIT = 9,	/* final scheduler totals of an exiting thread */
	/* tls.bpf.c (tls.h), owned by the TLS capture */
	XP_EV_TLS_DATA = 16,	/* plaintext chunk of SSL_read/SSL_write(_ex) */
	XP_EV_TLS_HANDSHAKE = 17,
	XP_EV_TLS_FREE = 18,	/* SSL object freed: connection id ends */
	XP_EV_MAP_EXEC = 19,	/* a traced process mmap'd an executable file not seen before */
	/* sock.bpf.c (sock.h), owned by the socket/ciphertext tier */
	XP_EV_SOCK_CONNECT = 24,
	XP_EV_SOCK_ACCEPT = 25,
	XP_EV_SOCK_DATA = 26,	/* one read/write on a socket: size, timing */
	XP_EV_SOCK_CLOSE = 27,
	XP_EV_SOCK_SNI = 28,	/* server name from a TLS ClientHello */
	XP_EV_SOCK_DISCOVER = 29,	/* an untraced process matched a network rule (discovery) */
	/* 32..47: GPU, cuda.bpf.c (cuda.h) */
	XP_EV_GPU_FIRST = 32,
	XP_EV_CUDA_CALL = 32,	/* a CUDA launch/copy/sync call returned */
	XP_EV_GPU_LAST = 47,
	XP_EV_TYPE_MAX = 64,	/* size of the drop counter array */
};

/* Header of every ring buffer record: 32 bytes, 8-byte aligned. */
struct xk_hdr {
	__u16 type;	/* enum xk_event_type */
	__u16 cpu;	/* CPU that emitted it (orders records with equal ts) */
	__u32 size;	/* bytes of the whole record, header included */
	__u64 ts_ns;	/* bpf_ktime_get_ns(), CLOCK_MONOTONIC */
	__u32 tgid;	/* process (userspace "pid") the record is about */
	__u32 tid;	/* thread (userspace "tid") the record is about */
	__u64 start_ns;	/* start time of process tgid, CLOCK_MONOTONIC */
};

/*
 * Value of the `traced` filter map (key: tgid). depth is 0 for a process
 * userspace added, parent's depth + 1 for one added at fork in the kernel.
 */
struct xk_traced {
	__u32 depth;
	__u32 root_tgid;	/* the userspace-added ancestor */
	__u64 start_ns;		/* 0 until the kernel saw the process (fork/exec) */
};

/*
 * Sizes of the shared maps. 8192 live traced processes: an agent plus its
 * tool calls rarely has more than a few hundred alive at once, and an entry
 * is deleted when its process exits (about 64 bytes each: 512 KiB at most).
 */
#define XP_MAX_TRACED 8192

/*
 * The `traced_flags` map (common.bpf.h): one byte per tgid, 1 while the
 * tgid may be in `traced`, in entries of XP_FLAGS_PER_ENTRY bytes, so the
 * mmapped map is a byte array indexed by tgid. Sized by userspace from
 * pid_max; the objects' own default covers PID_MAX_LIMIT (4 MiB).
 */
#define XP_FLAGS_PER_ENTRY 64
#define XP_PID_MAX_LIMIT (4 * 1024 * 1024)

struct xk_traced_flags {
	__u8 on[XP_FLAGS_PER_ENTRY];
};

#endif /* XPERF_BPF_XPERF_H */
