// SPDX-License-Identifier: MIT
/*
 * sock_hooks.c - the socket tier's hook choice (sock_hooks.h) and the
 * kernel probes it rests on, done as libbpf-tools does: load a
 * 2-instruction program against the hook's BTF id and see whether the
 * kernel takes it.
 */
#include "userspace/sock_hooks.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

static const char *const names[] = {
	[XPC_SOCK_HOOKS_AUTO] = "auto",
	[XPC_SOCK_HOOKS_SOCKET] = "socket",
	[XPC_SOCK_HOOKS_SYSCALLS] = "syscalls",
};

/* The tracepoints of the socket hooks (bpf/sock.bpf.c), the map watch's last. */
static const char *const socket_tps[] = {
	"sock_send_length", "sock_recv_length", "inet_sock_set_state", "tcp_destroy_sock",
	"mmap_lock_released",
};

const char *xpc_sock_hooks_name(enum xpc_sock_hooks h)
{
	return (unsigned int)h < sizeof(names) / sizeof(names[0]) ? names[h] : NULL;
}

int xpc_sock_hooks_parse(const char *s)
{
	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

/*
 * The kernel's BTF, parsed once: libbpf_find_vmlinux_btf_id() parses all of
 * it (megabytes) at every call, and start-up asks about a dozen hooks.
 */
static int vmlinux_id(const char *name, enum bpf_attach_type type)
{
	static struct btf *vmlinux;
	char tp[128];

	if (!vmlinux)
		vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux)
		return -1;
	if (type != BPF_TRACE_RAW_TP)
		return btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC);
	snprintf(tp, sizeof(tp), "btf_trace_%s", name);
	return btf__find_by_name_kind(vmlinux, tp, BTF_KIND_TYPEDEF);
}

bool xpc_kfunc_ok(const char *name)
{
	return vmlinux_id(name, BPF_TRACE_FENTRY) > 0;
}

/* A 2-instruction tracing program of this attach type against BTF id `name`; fd or -1. */
static int load_stub(const char *name, enum bpf_attach_type type)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type);
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int id = vmlinux_id(name, type);

	if (id <= 0) {
		errno = ENOENT;
		return -1;
	}
	opts.attach_btf_id = id;
	return bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns, 2, &opts);
}

bool xpc_tp_btf_ok(const char *name)
{
	int fd = load_stub(name, BPF_TRACE_RAW_TP);

	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/*
 * 0 when an fentry program can attach to kernel function `func` (BPF
 * trampolines), else the kernel's -errno (this VM kind: -EPERM at load).
 */
static int fentry_ok(const char *func)
{
	int fd = load_stub(func, BPF_TRACE_FENTRY), link = -1, err;

	if (fd >= 0)
		link = bpf_link_create(fd, 0, BPF_TRACE_FENTRY, NULL);
	err = link >= 0 ? 0 : errno ? -errno : -ENOENT;
	if (link >= 0)
		close(link);
	if (fd >= 0)
		close(fd);
	return err;
}

/* true when the kernel has a kprobe PMU (perf_event kprobes). */
static bool kprobes_ok(void)
{
	return access("/sys/bus/event_source/devices/kprobe/type", R_OK) == 0;
}

/*
 * What the socket functions' own hooks would run on here, said with the
 * evidence (capture.json's reason): the kernel's answer to an fentry
 * program on tcp_sendmsg, and whether it has a kprobe event source.
 */
static void others_why(char *buf, size_t len)
{
	int fentry = fentry_ok("tcp_sendmsg");

	if (!fentry)
		snprintf(buf, len, "fentry available, no fentry hooks built");
	else if (kprobes_ok())
		snprintf(buf, len, "kprobes available, no kprobe hooks built");
	else
		snprintf(buf, len, "no fentry: an fentry program on tcp_sendmsg was refused: %s; "
			 "no kprobes: no kprobe event source", strerror(-fentry));
}

/* The first socket tracepoint this kernel lacks, or NULL. */
static const char *missing_tp(bool watch_maps)
{
	size_t n = sizeof(socket_tps) / sizeof(socket_tps[0]) - !watch_maps;

	for (size_t i = 0; i < n; i++)
		if (!xpc_tp_btf_ok(socket_tps[i]))
			return socket_tps[i];
	return NULL;
}

int xpc_sock_hooks_pick(enum xpc_sock_hooks want, bool watch_maps, char *why, size_t len)
{
	const char *missing = want == XPC_SOCK_HOOKS_SYSCALLS ? NULL : missing_tp(watch_maps);
	/* Not built (no machine here has them to test on): said, so a reader knows. */
	char others[160];

	others_why(others, sizeof(others));

	if (want == XPC_SOCK_HOOKS_SYSCALLS) {
		snprintf(why, len, "syscalls: forced: every syscall of "
			 "every process runs a program");
		return XPC_SOCK_HOOKS_SYSCALLS;
	}
	if (!missing) {
		snprintf(why, len, "socket: %s sock_send_length, sock_recv_length, "
			 "inet_sock_set_state, tcp_destroy_sock%s with BTF (%s)",
			 want == XPC_SOCK_HOOKS_SOCKET ? "forced" : "this kernel has",
			 watch_maps ? ", mmap_lock_released" : "", others);
		return XPC_SOCK_HOOKS_SOCKET;
	}
	if (want == XPC_SOCK_HOOKS_SOCKET) {
		snprintf(why, len, "socket: not available: no tp_btf tracepoint %s (kernel < 6.4?)",
			 missing);
		return -EOPNOTSUPP;
	}
	snprintf(why, len, "syscalls: no tp_btf tracepoint %s (kernel < 6.4?), %s: every "
		 "syscall of every process runs a program", missing, others);
	return XPC_SOCK_HOOKS_SYSCALLS;
}
