/* SPDX-License-Identifier: MIT */
/*
 * capture.h - the eBPF capture layer as a library: load the xperf BPF
 * objects, trace a process tree, deliver decoded records.
 *
 * Lifecycle: xpc_open() -> xpc_add_pid() (or spawn gated, see spawn.h) ->
 * xpc_poll() in a loop -> xpc_drain() -> read xpc_drops() -> xpc_close().
 * Records are the binary structs of bpf/xperf.h and the per-object headers
 * (bpf/proc.h, bpf/sched.h, bpf/tls.h, bpf/sock.h, bpf/cuda.h): the callback gets a
 * pointer valid only during the call; rec->size bytes are readable, and a
 * record whose size does not match its type's minimum is counted as
 * malformed and never delivered.
 *
 * Ordering: records come in ring order, which is commit order across CPUs;
 * ts_ns may step back by a few microseconds between CPUs. Consumers that
 * need strict time order sort by (ts_ns, cpu) within a small window.
 *
 * Errors: functions return 0 or a negative errno; xpc_error() holds a
 * one-line message for the last failure.
 */
#ifndef XPERF_USERSPACE_CAPTURE_H
#define XPERF_USERSPACE_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#include "bpf/xperf.h"
#include "bpf/proc.h"
#include "bpf/sched.h"
#include "bpf/sock.h"
#include "bpf/tls.h"

#define XPC_RING_DEFAULT (16u << 20)	/* bytes: see userspace/README.md */
/* 4 MiB: a long agent context is one SSL_write of up to MiBs (bench/tls/cap.sh) */
#define XPC_PAYLOAD_CAP_DEFAULT XP_TLS_CAP_DEFAULT

struct xpc;

/*
 * Called once per record, in ring order. Return 0 to go on; a negative
 * value stops the current xpc_poll()/xpc_drain(), which returns it.
 */
typedef int (*xpc_event_fn)(void *ctx, const struct xk_hdr *rec);

struct xpc_opts {
	size_t ring_size;	/* bytes, power of two >= page size; 0: XPC_RING_DEFAULT */
	bool no_plaintext;	/* no TLS plaintext uprobes: socket (ciphertext) tier only */
	bool capture_payloads;	/* keep payload bytes in TLS records (opt-in) */
	size_t payload_cap;	/* bytes captured per SSL call; 0: XPC_PAYLOAD_CAP_DEFAULT */
	bool no_sched_events;	/* keep per-thread totals only, no XP_EV_SCHED records */
	bool raw_tp;		/* raw_tp programs even where tp_btf would attach (the fallback) */
	bool tls_per_process;	/* TLS uprobes in traced processes only, not on every mapper */
	bool no_cuda;		/* no uprobes on libcudart/libcuda (cuda module off) */
	int sock_hooks;		/* socket tier's hooks, enum xpc_sock_hooks; 0: the cheapest here */
	bool discover_execs;	/* every exec on the machine is delivered, untraced ones
				   flagged XP_EXEC_UNTRACED (modules never see those) */
	bool discover_net;	/* untraced processes' first sends on TCP are examined for
				   xpc_discover_net()'s names (bpf/discover_net.bpf.h) */
	bool filter_first;	/* xpc_add_pid: the kernel filter before the probes (a running
				   agent's first calls count more than attach time) */
	int verbose;		/* >0: libbpf debug messages on stderr */
	xpc_event_fn on_event;	/* may be NULL (records are then only counted) */
	void *ctx;		/* passed to on_event */
};

/*
 * Check privileges and BTF, create the shared maps, load and attach every
 * BPF object. Nothing is traced until xpc_add_pid(). On failure returns a
 * negative errno (-EPERM: not privileged, -ENOENT: no kernel BTF, other:
 * load/attach failure) and writes a one-line message into err.
 */
int xpc_open(const struct xpc_opts *opts, struct xpc **out, char *err, size_t errlen);

/*
 * Trace process pid (any thread id is mapped to its process) with every
 * thread, its live descendants and everything they start from now on.
 * -ESRCH: no such process; -EINVAL: pid <= 0.
 */
int xpc_add_pid(struct xpc *c, pid_t pid);

/*
 * Stop tracing process tgid from now on (the daemon refuses an agent the
 * kernel traced at its exec): children it starts later are not traced;
 * records already in the ring still come. 0 or -ENOENT (not traced).
 */
int xpc_untrace(struct xpc *c, pid_t tgid);

/*
 * pid (already added, held before exec) will exec `path`: let every module
 * attach to that file now, before the first instruction runs. A module that
 * fails is reported with -v only: the command still runs, traced by the
 * exec-time attach. Returns 0.
 */
int xpc_add_command(struct xpc *c, pid_t pid, const char *path);

/*
 * With discover_execs: an untraced process whose exec'd file has one of
 * these basenames (at most 14 bytes each, so that the kernel's 15-byte comm
 * tells them from longer names) becomes a traced root in the kernel at that exec; its
 * exec record carries XP_EXEC_DISCOVERED. Replaces the previous set.
 */
int xpc_discover_names(struct xpc *c, const char *const *names, unsigned int n);

/*
 * With discover_net: an untraced process whose TCP connection opens with a
 * ClientHello naming one of these hosts (kind XP_DISCOVER_HOST) or with a
 * plaintext HTTP request to one of these paths (XP_DISCOVER_PATH) becomes a
 * traced root in the kernel at that send; so does one whose SSL_write(_ex)
 * (the plaintext tier's probes) starts a request to one of these paths. An
 * XP_EV_SOCK_DISCOVER record (bpf/sock.h) says so. Names of at most 63
 * bytes: paths exact, hosts exact or `*.SUFFIX` (every name below SUFFIX).
 * Replaces the set.
 */
int xpc_discover_net(struct xpc *c, int kind, const char *const *names, unsigned int n);

/*
 * Probe now the TLS libraries (libssl.so*) of the standard library
 * directories of pid's root (the daemon: pid 1, the node's), ahead of any
 * process that will use them: the first uprobe on a file costs the kernel a
 * wait of its own (tens of ms idle, over a second on a loaded node), which a
 * process found at its exec would otherwise spend making its first calls.
 * Returns the number of files probed, 0 without the plaintext tier or in
 * per-process mode, or a negative errno (message in xpc_error()).
 */
int xpc_probe_node_libs(struct xpc *c, pid_t pid);

/* The kernel's network-discovery counters (enum xk_discover_stat in bpf/sock.h). */
int xpc_discover_stats(struct xpc *c, uint64_t stats[XP_DSTAT_MAX]);

/*
 * Wait up to timeout_ms for records and deliver them, then deliver what
 * is pending anyway: the kernel wakes the consumer only once 1/8 of the
 * ring is full, so callers poll with a short timeout (100 ms) and records
 * reach them within about that delay. Returns the number delivered (0 on
 * timeout or EINTR) or a negative errno / callback value.
 */
int xpc_poll(struct xpc *c, int timeout_ms);

/* Deliver every record already in the ring without waiting (at shutdown). */
int xpc_drain(struct xpc *c);

/*
 * Call fn with the scheduler totals of every tracked thread so far (the time
 * in its current state since s->last_ts is not yet included); stops at and
 * returns fn's nonzero value.
 */
int xpc_thread_stats_each(struct xpc *c,
			  int (*fn)(void *ctx, __u32 tid, const struct xk_sched_stats *s),
			  void *ctx);

/* Records lost in the kernel, per type, summed over CPUs. */
struct xpc_counts {
	uint64_t drops[XP_EV_TYPE_MAX];		/* ring full (drops[0]: traced set full) */
	uint64_t records[XP_EV_TYPE_MAX];	/* delivered to on_event */
	uint64_t malformed;			/* records shorter than their type */
};

/* Fill counts; 0 or a negative errno (the drop map could not be read: counts all 0). */
int xpc_counts(struct xpc *c, struct xpc_counts *counts);

/* Sum of counts->drops (every type). */
uint64_t xpc_counts_dropped(const struct xpc_counts *counts);

/* The core's health now (the daemon's metrics). */
struct xpc_health {
	uint64_t ring_size;		/* bytes */
	uint64_t ring_used;		/* bytes pending when the last read began */
	uint64_t ring_used_max;		/* the most pending when a read began, since open */
	uint64_t located_failed;	/* located TLS files the self-check distrusted */
	uint64_t located_withheld;	/* their records never delivered (locate_check.h) */
};

/* Fill h; modules add their part (module.h: health). */
void xpc_health(const struct xpc *c, struct xpc_health *h);

/* Short name of a record type ("exec", "tls_data"); "type_N" if unknown. */
const char *xpc_type_name(unsigned int type);

/* The last error message ("" if none). */
const char *xpc_error(const struct xpc *c);

/* Detach every probe and free everything. Records still in the ring are lost:
 * call xpc_drain() first. NULL is a no-op. */
void xpc_close(struct xpc *c);

#endif /* XPERF_USERSPACE_CAPTURE_H */
