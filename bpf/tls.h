/* SPDX-License-Identifier: MIT */
/*
 * tls.h - records of tls.bpf.c: the plaintext of SSL_write/SSL_read(_ex)
 * of traced processes, chunked, positioned and length-checked.
 *
 * A connection is (hdr.tgid, hdr.start_ns, ssl): the SSL* alone is reused
 * after SSL_free and across processes. Each direction of a connection is a
 * byte stream: `pos` is the offset of data[0] in it, so a consumer sees
 * every gap (truncation, a failed copy, a dropped record) as pos jumping
 * past the bytes it holds. `sock_id` and `fd` join the connection to
 * sock.h records.
 */
#ifndef XPERF_BPF_TLS_H
#define XPERF_BPF_TLS_H

/*
 * Bytes of payload per record. 16 KiB is one TLS record's plaintext at most,
 * so an SSL_read usually fits in one record; a 1 MiB SSL_write takes 64.
 */
#define XP_TLS_CHUNK 16384
/*
 * Default and largest per-call capture cap (bytes); the cap is rodata.
 * 4 MiB: an LLM request body (a long conversation) is one SSL_write of
 * hundreds of KiB to MiBs (node coalesces headers and a 1 MiB body into
 * one call); four such calls in flight fill the default 16 MiB ring,
 * which the consumer drains in about a millisecond per MiB.
 */
#define XP_TLS_CAP_DEFAULT (4 * 1024 * 1024)
#define XP_TLS_CAP_MAX (16 * 1024 * 1024)

/* Direction of the plaintext, as the traced process sees it. */
enum xk_tls_dir {
	XP_TLS_WRITE = 0,	/* SSL_write(_ex): sent to the peer */
	XP_TLS_READ = 1,	/* SSL_read(_ex): received from the peer */
};

/* The hooked function. */
enum xk_tls_fn {
	XP_TLS_FN_WRITE = 0,	/* SSL_write */
	XP_TLS_FN_READ = 1,	/* SSL_read */
	XP_TLS_FN_WRITE_EX = 2,	/* SSL_write_ex */
	XP_TLS_FN_READ_EX = 3,	/* SSL_read_ex */
};

/* struct xk_tls_data.flags */
enum xk_tls_flags {
	XP_TLS_TRUNC = 1,	/* the call moved more than the cap: bytes after it not sent */
	XP_TLS_COPY_FAIL = 2,	/* reading the buffer faulted: data holds nothing */
	XP_TLS_LAST = 4,	/* last record of this call */
	XP_TLS_NEW_CONN = 8,	/* first call seen on this SSL*: pos counts from here
				 * (after a mid-connection attach, earlier bytes are unknown) */
	XP_TLS_SOCK_INFERRED = 16, /* sock_id not from a nested syscall but from the
				    * thread's last socket receive (memory BIOs: node) */
	XP_TLS_LOCATED = 32,	/* from a function found by analysis, not by symbol
				 * (userspace/locate): delivered only once self-checked */
};

/*
 * XP_EV_TLS_DATA, variable size: hdr.size = offsetof(struct xk_tls_data,
 * data) + len. One SSL call makes ceil(min(call_len, cap) / XP_TLS_CHUNK)
 * records (at least one), in order, with equal call_ns and hdr.ts_ns.
 */
struct xk_tls_data {
	struct xk_hdr hdr;	/* ts_ns: when the call returned */
	__u64 ssl;		/* the SSL* */
	__u64 sock_id;		/* socket inode (socket:[N]) of the connection, 0 while unknown */
	__u64 pos;		/* offset of data[0] in this direction's byte stream */
	__u64 call_ns;		/* when the call was entered */
	__u32 call_len;		/* bytes the call moved (its return value) */
	__u32 offset;		/* offset of data[0] within the call's buffer */
	__u32 len;		/* bytes in data */
	__s32 fd;		/* socket fd of the connection, -1 while unknown */
	__u8 dir;		/* enum xk_tls_dir */
	__u8 fn;		/* enum xk_tls_fn */
	__u8 flags;		/* enum xk_tls_flags */
	__u8 pad;
	__u16 located;		/* XP_TLS_LOCATED: 1 + index of the located file
				 * (userspace/tls_probes.h), 0 for a symbol */
	__u8 pad2[2];
	char data[XP_TLS_CHUNK];
};

/* XP_EV_TLS_FREE: SSL_free(ssl); the connection id ends, totals are final. */
struct xk_tls_free {
	struct xk_hdr hdr;
	__u64 ssl;
	__u64 sock_id;
	__u64 bytes[2];		/* stream lengths, indexed by enum xk_tls_dir */
};

/*
 * Value of `tls_calls` (task storage, one per thread), the SSL call a
 * thread is inside (ssl 0: none; tls_calls.bpf.h). It is shared with
 * sock.bpf.c, whose hooks on the socket syscalls nested in the call fill
 * `sock_id` and `fd`: that is how an SSL* learns its socket.
 */
struct xk_tls_call {
	__u64 ssl;
	__u64 buf;		/* the caller's buffer */
	__u64 len_ptr;		/* size_t * of the _ex variants, 0 otherwise */
	__u64 call_ns;
	__u64 sock_id;		/* set by a nested socket read/write, 0 if none */
	__s32 fd;		/* the same, -1 if none */
	__u32 fn;		/* enum xk_tls_fn */
	__u32 located;		/* the uprobe's cookie: see xk_tls_data.located */
	__u32 pad;
};

/*
 * Value of `tls_last_recv` (task storage, one per thread): the last TCP
 * receive of a traced thread, written by sock.bpf.c. A TLS stack on memory
 * BIOs (node) reads the socket first and decrypts after, outside any SSL
 * call, so an SSL_read with no nested syscall takes its socket from here.
 */
struct xk_tls_last_recv {
	__u64 sock_id;
	__u64 ts_ns;
	__s32 fd;
	__u32 pad;
};

/*
 * XP_EV_MAP_EXEC: process hdr.tgid mmap'd file (dev, ino) executable at
 * addr, after its exec (a dlopen, a loader mapping a DT_NEEDED library):
 * the modules rescan it for libraries to probe (tls_module.c). One record
 * per (process, inode) for as long as the in-kernel memo keeps it; ino is
 * 0 when the mapping could not be read.
 */
struct xk_map_exec {
	struct xk_hdr hdr;
	__u64 addr;		/* start of the mapping */
	__u64 ino;		/* inode of the file */
	__u32 dev_major;	/* its device, as /proc/PID/maps and st_dev show it */
	__u32 dev_minor;
};

#endif /* XPERF_BPF_TLS_H */
