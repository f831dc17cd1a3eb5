/* SPDX-License-Identifier: MIT */
/*
 * sock.h - records of sock.bpf.c, the ciphertext tier: TCP connections of
 * traced processes (connect, accept, close), every socket read and write
 * with its size and times, and the first bytes a connection sends (the
 * TLS ClientHello, from which userspace/sni.c reads the server name).
 * Works for any TLS stack, symbols or not, and decrypts nothing.
 *
 * A connection is named by its socket's inode number (sock_id, shown as
 * socket:[N] in /proc/PID/fd: unique among live sockets, shared by every
 * fd and process holding the socket). The 5-tuple rides on every record,
 * so a consumer that attached mid-connection still knows the peer.
 */
#ifndef XPERF_BPF_SOCK_H
#define XPERF_BPF_SOCK_H

/* Bytes of the first send kept for the SNI (a ClientHello's SNI is early). */
#define XP_SOCK_PREFIX 1024

enum xk_sock_dir {
	XP_SOCK_SEND = 0,
	XP_SOCK_RECV = 1,
};

/* The syscall a record comes from (x86-64 numbers are not ABI here). */
enum xk_sock_call {
	XP_SOCK_READ = 0,
	XP_SOCK_WRITE = 1,
	XP_SOCK_READV = 2,
	XP_SOCK_WRITEV = 3,
	XP_SOCK_SENDTO = 4,
	XP_SOCK_RECVFROM = 5,
	XP_SOCK_SENDMSG = 6,
	XP_SOCK_RECVMSG = 7,
	XP_SOCK_CONNECT = 8,
	XP_SOCK_ACCEPT = 9,
	XP_SOCK_CLOSE = 10,
	XP_SOCK_OTHER = 11,	/* not a socket syscall: sendfile, splice, io_uring (socket hooks) */
};

/* TCP endpoints; addresses are IPv4-mapped IPv6 for AF_INET. */
struct xk_sock_tuple {
	__u8 saddr[16];		/* local address, network order */
	__u8 daddr[16];		/* peer address, network order */
	__u16 sport;		/* local port, host order */
	__u16 dport;		/* peer port, host order */
	__u16 family;		/* AF_INET or AF_INET6 of the socket */
	__u16 pad;
};

/*
 * XP_EV_SOCK_CONNECT, XP_EV_SOCK_ACCEPT, XP_EV_SOCK_CLOSE. err is the
 * syscall's result (connect: 0 or -EINPROGRESS for a started connection).
 * The connect record comes when the connection is established (the socket
 * hooks) or when the syscall returns (the raw syscall hooks); begin_ns says
 * when it began, so that TCP and TLS set-up can be timed. At close,
 * bytes[] are the kernel's own TCP counters (bytes acked by the peer, bytes
 * received), right even for bytes moved before tracing began.
 */
struct xk_sock_conn {
	struct xk_hdr hdr;
	__u64 sock_id;
	struct xk_sock_tuple tuple;
	__s32 fd;
	__s32 err;
	__u64 bytes[2];		/* indexed by enum xk_sock_dir (close only) */
	__u64 begin_ns;		/* connect only: when it began (SYN_SENT, or the syscall's
				 * entry on the raw syscall hooks); 0: not seen */
};

/*
 * XP_EV_SOCK_DATA: one read/write/send/recv syscall of a traced thread on
 * a TCP socket that moved data. hdr.ts_ns is when it returned, call_ns
 * when it was entered (a blocking recv waits in between); call_ns is 0
 * where the hooks see only the return (the socket hooks, tls_probes.h),
 * and fd is -1 where the call named no fd of this socket.
 */
struct xk_sock_data {
	struct xk_hdr hdr;
	__u64 sock_id;
	struct xk_sock_tuple tuple;
	__u64 ssl;		/* SSL* of the SSL call this is nested in, 0 if none */
	__u64 call_ns;
	__u32 len;		/* bytes moved (the return value) */
	__s32 fd;
	__u8 dir;		/* enum xk_sock_dir */
	__u8 call;		/* enum xk_sock_call */
	__u8 pad[6];
};

/*
 * XP_EV_SOCK_SNI, variable size: the first bytes of the first send seen on
 * a connection (hdr.size = offsetof(struct xk_sock_sni, data) + len).
 * Parsed in userspace; kept in memory only.
 */
struct xk_sock_sni {
	struct xk_hdr hdr;
	__u64 sock_id;
	struct xk_sock_tuple tuple;
	__u32 len;		/* bytes in data */
	__u32 send_len;		/* bytes the send moved */
	char data[XP_SOCK_PREFIX];
};

/*
 * Network discovery (the daemon's `host` and `path` rules, discover_net.bpf.h):
 * the first send of an untraced process's TCP connection is examined in the
 * kernel; a ClientHello whose server name, or a plaintext HTTP request whose
 * path, is in the rule maps makes the process traced at once, and this record
 * (a few bytes: never the data) says so. So does an untraced process's
 * SSL_write(_ex) starting a request to a `path` rule (tls.bpf.c): sock_id 0 and
 * a zero tuple then (the socket is not known at the call's entry). Names are
 * NUL-padded, at most 63 bytes.
 */
#define XP_DISCOVER_NAME 64

/*
 * A key of discover_hosts, an LPM trie: the host name reversed, so that a
 * rule `*.example.com` is the prefix "moc.elpmaxe." (prefixlen: its bits)
 * and an exact rule `api.example.com` the prefix "moc.elpmaxe.ipa" with its
 * NUL (nothing longer matches). A ClientHello's name is looked up reversed,
 * lowercased and NUL-padded, its prefixlen the whole key.
 */
struct xk_host_key {
	__u32 prefixlen;
	char rname[XP_DISCOVER_NAME];
};

enum xk_discover_kind {
	XP_DISCOVER_HOST = 1,	/* name: the ClientHello's server name (SNI) */
	XP_DISCOVER_PATH = 2,	/* name: the request's path, up to '?' */
};

/* XP_EV_SOCK_DISCOVER: the current process matched a network rule, traced from now. */
struct xk_sock_discover {
	struct xk_hdr hdr;
	__u64 sock_id;
	struct xk_sock_tuple tuple;
	__u32 kind;		/* enum xk_discover_kind */
	__u32 pad;
	char name[XP_DISCOVER_NAME];
};

/* Counters of discover_stats (per CPU): what the kernel examined and let go. */
enum xk_discover_stat {
	XP_DSTAT_CONNS = 0,	/* first sends of untraced TCP connections examined */
	XP_DSTAT_HELLOS = 1,	/* of those, TLS ClientHellos */
	XP_DSTAT_NO_SNI = 2,	/* ClientHellos without a readable name (absent, cut, > 63 bytes) */
	XP_DSTAT_REQUESTS = 3,	/* HTTP/1.x request lines (a first send, an untraced SSL write) */
	XP_DSTAT_MATCHED = 4,	/* processes made traced */
	XP_DSTAT_UNREAD = 5,	/* first sends whose bytes could not be read */
	XP_DSTAT_MAX = 6,
};

#endif /* XPERF_BPF_SOCK_H */
