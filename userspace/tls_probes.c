// SPDX-License-Identifier: MIT
/*
 * tls_probes.c - lifecycle of the tls and sock skeletons (tls_probes.h):
 * open -> reuse the shared maps -> configure rodata -> load -> attach.
 *
 * The sock object reuses the tls object's `tls_calls` so the TLS return
 * probe sees the socket cookie the nested tcp_sendmsg/tcp_recvmsg wrote.
 * Uprobes go on each library once, by symbol name (libbpf resolves it in
 * .dynsym/.symtab), with pid -1: every process mapping that inode is
 * covered and the kernel-side traced-set check filters the rest. In
 * per_pid mode they go on each (process, library) instead: the kernel then
 * plants breakpoints only in traced processes, so no other process pays
 * the trap; a child that forks without exec runs on the breakpoints it
 * inherited while its parent lives (bpf/TLS.md: measured, and the cost of
 * this mode). A process's links are detached when its exit record arrives
 * (xpc_tls_probes_on_exit), on threads of their own.
 * With the plaintext tier on (or watch_maps), the sock object also
 * announces files a traced process maps executable after exec
 * (bpf/map_watch.bpf.h): xpc_tls_probes_on_map() probes them and counts
 * what that was late for.
 */
#include "userspace/tls_probes.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>

#include <bpf/bpf.h>

#include "bpf/sock.skel.h"
#include "bpf/tls.skel.h"
#include "bpf/xperf.h"
#include "bpf/tls.h"
#include "bpf/uprobe_attach.h"
#include "lib/clock_anchor.h"
#include "lib/grow.h"
#include "userspace/links.h"
#include "userspace/sock_hooks.h"
#include "userspace/tls_libs.h"

/* Per-process mode: the libraries examined for each process. */
struct pid_libs {
	pid_t pid;
	struct xpc_tls_libset *libs;
};

/* Windows between a late library's mapping and its probes (io_unprobed). */
#define LATE_WINDOWS 64

struct late_window {
	uint32_t tgid;
	uint64_t from_ns, to_ns;
};

/*
 * The links of an exited process, kept DETACH_GRACE_NS: detaching any link
 * on a function makes the kernel remove that function's breakpoints from
 * every mm no remaining probe names, including a child forked without
 * exec that still runs on inherited breakpoints until its own links
 * (xpc_tls_probes_on_fork) are in; the grace covers that attach.
 */
struct dead_links {
	struct bpf_link **links;
	size_t n;
	uint64_t exit_ns;
};

#define DETACH_GRACE_NS (2ULL * 1000 * 1000 * 1000)

/* When located file id's probes went in for pid (-1: every process). */
struct located_at {
	unsigned int id;
	pid_t pid;
	uint64_t ns;
};

#define MAX_LOCATED 0xffff	/* the cookie is 16 bits */

struct xpc_tls_probes {
	struct tls_bpf *tls;
	struct loc_locator *locator;	/* NULL with no_plaintext */
	struct xpc_tls_located *located;
	size_t nlocated, cap_located;
	struct located_at *located_at;
	size_t nlocated_at, cap_located_at;
	struct sock_bpf *sock;
	struct xpc_tls_libset *libs;	/* all processes (pid -1 uprobes) */
	struct pid_libs *per_pid;	/* per_pid mode: one set per process */
	size_t npids, cap_per_pid;
	pid_t cur_pid;			/* what attach_lib attaches to: -1 or a pid */
	struct bpf_link **links;
	pid_t *link_pids;		/* links[i] probes process link_pids[i], or -1: all */
	size_t nlinks, cap, cap_pids;
	struct xpc_detacher detaching;	/* threads detaching exited processes' links */
	struct dead_links *dead;	/* exited processes' links, detached after a grace */
	size_t ndead, cap_dead;
	bool verbose, per_pid_mode;
	struct xpc_tls_stats st;
	struct late_window windows[LATE_WINDOWS];	/* a ring: the last ones */
	size_t nwindows;
};

/* The uprobes of one library: function, program (in struct tls_bpf), return probe or not. */
struct uprobe_spec {
	const char *func;
	unsigned int sym; /* enum xpc_tls_sym bit the library must export */
	size_t prog;
	bool ret;
};

#define PROG(name) offsetof(struct tls_bpf, progs.name)

static const struct uprobe_spec uprobes[] = {
	{ "SSL_write", XPC_TLS_SYM_WRITE, PROG(ssl_write_enter), false },
	{ "SSL_write", XPC_TLS_SYM_WRITE, PROG(ssl_rw_exit), true },
	{ "SSL_read", XPC_TLS_SYM_READ, PROG(ssl_read_enter), false },
	{ "SSL_read", XPC_TLS_SYM_READ, PROG(ssl_rw_exit), true },
	{ "SSL_write_ex", XPC_TLS_SYM_WRITE_EX, PROG(ssl_write_ex_enter), false },
	{ "SSL_write_ex", XPC_TLS_SYM_WRITE_EX, PROG(ssl_rw_exit), true },
	{ "SSL_read_ex", XPC_TLS_SYM_READ_EX, PROG(ssl_read_ex_enter), false },
	{ "SSL_read_ex", XPC_TLS_SYM_READ_EX, PROG(ssl_rw_exit), true },
	{ "SSL_free", XPC_TLS_SYM_FREE, PROG(ssl_free), false },
};

/* Keep link l, which probes p->cur_pid. */
static int keep_link(struct xpc_tls_probes *p, struct bpf_link *l)
{
	if (xp_grow((void **)&p->links, &p->cap, p->nlinks + 1, sizeof(*p->links)) ||
	    xp_grow((void **)&p->link_pids, &p->cap_pids, p->nlinks + 1, sizeof(*p->link_pids))) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	p->link_pids[p->nlinks] = p->cur_pid;
	p->links[p->nlinks++] = l;
	return 0;
}

/* Remember a located file; its id (1-based) or 0 when the table is full. */
static unsigned int add_located(struct xpc_tls_probes *p, const char *path,
				const struct loc_result *r)
{
	struct xpc_tls_located *n;

	/* One id per file identity: processes of one file (per_pid mode) share its trust. */
	for (size_t i = 0; i < p->nlocated; i++)
		if (!strcmp(p->located[i].r.key, r->key))
			return (unsigned int)i + 1;
	if (p->nlocated == MAX_LOCATED)
		return 0;
	if (xp_grow((void **)&p->located, &p->cap_located, p->nlocated + 1, sizeof(*n)))
		return 0;
	n = &p->located[p->nlocated++];
	snprintf(n->path, sizeof(n->path), "%s", path);
	n->r = *r;
	return (unsigned int)p->nlocated;
}

/* Remember when id's probes went in for p->cur_pid (for the self-check's mid-stream rule). */
static void note_located_at(struct xpc_tls_probes *p, unsigned int id)
{
	if (xp_grow((void **)&p->located_at, &p->cap_located_at, p->nlocated_at + 1,
		    sizeof(*p->located_at)))
		return;	/* then the file is judged as if joined mid-stream: never blamed for HTTP */
	p->located_at[p->nlocated_at++] =
		(struct located_at){ id, p->cur_pid, xp_now_ns(CLOCK_MONOTONIC) };
}

/* One uprobe of a located function. */
struct located_probe {
	struct bpf_program *prog;
	uint64_t off;
	bool ret;	/* a uretprobe (BoringSSL); Go's returns are plain uprobes on RETs */
	uint64_t cookie_hi;	/* above the file id in the cookie (rustls: the id's offset) */
};

/*
 * Where the probes of a located file go. BoringSSL's SSL_write/SSL_read
 * have OpenSSL's signatures: the same entry programs and the return
 * program. rustls's send_appdata_encrypt and take_received_plaintext:
 * rustls_write_enter (buffer, length; bytes taken returned: the return
 * program) and rustls_read_enter (the whole record at entry), the id's
 * offset in the cookie above the file id. Go's (*Conn).Write/Read:
 * entry programs of the register ABI and the return program on each RET
 * instruction.
 */
static size_t located_probes(const struct xpc_tls_probes *p, const struct loc_result *r,
			     struct located_probe *out)
{
	size_t n = 0;

	if (!strcmp(r->stack, "rustls")) {
		out[n++] = (struct located_probe){ p->tls->progs.rustls_write_enter, r->write_off, false,
						   r->conn_off };
		out[n++] = (struct located_probe){ p->tls->progs.ssl_rw_exit, r->write_off, true, 0 };
		out[n++] = (struct located_probe){ p->tls->progs.rustls_read_enter, r->read_off, false,
						   r->conn_off };
		return n;
	}
	if (strcmp(r->stack, "go")) {
		out[n++] = (struct located_probe){ p->tls->progs.ssl_write_enter, r->write_off, false, 0 };
		out[n++] = (struct located_probe){ p->tls->progs.ssl_rw_exit, r->write_off, true, 0 };
		out[n++] = (struct located_probe){ p->tls->progs.ssl_read_enter, r->read_off, false, 0 };
		out[n++] = (struct located_probe){ p->tls->progs.ssl_rw_exit, r->read_off, true, 0 };
		return n;
	}
	out[n++] = (struct located_probe){ p->tls->progs.go_write_enter, r->write_off, false, 0 };
	out[n++] = (struct located_probe){ p->tls->progs.go_read_enter, r->read_off, false, 0 };
	for (unsigned int i = 0; i < r->nwrite_rets; i++)
		out[n++] = (struct located_probe){ p->tls->progs.go_rw_ret, r->write_rets[i], false, 0 };
	for (unsigned int i = 0; i < r->nread_rets; i++)
		out[n++] = (struct located_probe){ p->tls->progs.go_rw_ret, r->read_rets[i], false, 0 };
	return n;
}

/*
 * Uprobes on the functions the locator found, by file offset, each with
 * the file's id as cookie so records carry XP_TLS_LOCATED and stay behind
 * the self-check. A stack found but not resolved is said once on stderr
 * and kept for capture.json.
 */
static int attach_located(struct xpc_tls_probes *p, const char *path,
			  const struct loc_result *r)
{
	unsigned int id = add_located(p, path, r);
	struct located_probe at[4 + 2 * LOC_GO_MAX_RETS];
	size_t n;

	if (r->status != LOC_FOUND || !id) {
		fprintf(stderr, "xperf-bpf: %s: %s TLS found but its functions not located (%s): "
			"its connections stay in the ciphertext tier\n", path, r->stack, r->why);
		return 0;
	}
	n = located_probes(p, r, at);
	for (size_t i = 0; i < n; i++) {
		struct bpf_link *l = xk_uprobe_attach(at[i].prog, p->cur_pid, path, NULL, at[i].off,
						      at[i].ret, id | at[i].cookie_hi << 16);
		int err;

		if (!l) {
			err = -errno;
			fprintf(stderr, "xperf-bpf: %s: cannot attach uprobe at 0x%llx: %s\n", path,
				(unsigned long long)at[i].off, strerror(-err));
			return err;
		}
		err = keep_link(p, l);
		if (err)
			return err;
	}
	note_located_at(p, id);
	if (p->verbose)
		fprintf(stderr, "xperf-bpf: TLS probes on %s (%s located, %s, %.1f ms%s)\n", path,
			r->stack, r->why, r->ms, r->from_cache ? ", cached" : "");
	return 0;
}

/* xpc_tls_lib_cb: attach every probe the library has symbols for, or what was located. */
static int attach_lib(void *ctx, const char *path, unsigned int syms,
		      const struct loc_result *loc)
{
	struct xpc_tls_probes *p = ctx;
	size_t before = p->nlinks;

	if (loc)
		return attach_located(p, path, loc);
	for (size_t i = 0; i < sizeof(uprobes) / sizeof(uprobes[0]); i++) {
		struct bpf_link *l;
		int err;

		if (!(syms & uprobes[i].sym))
			continue;
		l = xk_uprobe_attach(*(struct bpf_program **)((char *)p->tls + uprobes[i].prog),
				     p->cur_pid, path, uprobes[i].func, 0, uprobes[i].ret, 0);
		err = l ? keep_link(p, l) : -errno;
		if (err) {
			fprintf(stderr, "xperf-bpf: %s: cannot attach uprobe to %s: %s\n", path,
				uprobes[i].func, strerror(-err));
			/* All or none: a retry must not probe a function twice. */
			while (p->nlinks > before)
				bpf_link__destroy(p->links[--p->nlinks]);
			return err;
		}
	}
	if (p->verbose)
		fprintf(stderr, "xperf-bpf: TLS probes on %s (pid %d)\n", path, (int)p->cur_pid);
	return 0;
}

static int open_tls(struct xpc_tls_probes *p, const struct xpc_tls_opts *o)
{
	int err;

	p->tls = tls_bpf__open();
	if (!p->tls)
		return -errno;
	err = o->reuse_maps(o->ctx, p->tls->obj);
	if (err)
		return err;
	/* Configuration (rodata), set between open and load. */
	p->tls->rodata->cap_bytes = o->cap_bytes ? o->cap_bytes : XP_TLS_CAP_DEFAULT;
	p->tls->rodata->copy_direct = !o->copy_scratch && xpc_kfunc_ok("bpf_probe_read_user_dynptr");
	p->st.copy_why = p->tls->rodata->copy_direct ?
		"direct: bpf_probe_read_user_dynptr into the reserved ring record" :
		o->copy_scratch ? "scratch: forced: built in a per-CPU buffer, then copied into the ring" :
		"scratch: no bpf_probe_read_user_dynptr (kernel < 6.16?): built in a per-CPU "
		"buffer, then copied into the ring";
	if (p->verbose)
		fprintf(stderr, "xperf-bpf: TLS data copy: %s\n", p->st.copy_why);
	return tls_bpf__load(p->tls);
}

/* Keep the programs of one hook set of sock.bpf.c (sock_hooks.h). */
static int pick_hooks(struct xpc_tls_probes *p, int want, bool watch_maps)
{
	struct bpf_program *prog;
	int h = xpc_sock_hooks_pick(want, watch_maps, p->st.sock_hooks_why,
				   sizeof(p->st.sock_hooks_why));

	if (h < 0 || p->verbose)
		fprintf(stderr, "xperf-bpf: socket hooks: %s\n", p->st.sock_hooks_why);
	if (h < 0)
		return h;
	p->st.sock_hooks = h;
	bpf_object__for_each_program(prog, p->sock->obj) {
		const char *tp = bpf_program__section_name(prog) + strlen("tp_btf/");
		bool syscalls = !strcmp(tp, "sys_enter") || !strcmp(tp, "sys_exit");
		bool keep = syscalls == (h == XPC_SOCK_HOOKS_SYSCALLS);

		if (!strcmp(tp, "mmap_lock_released"))
			keep = keep && watch_maps;
		bpf_program__set_autoload(prog, keep);
	}
	return 0;
}

/* sock shares the loader's maps and, with the TLS tier, its tls_calls. */
static int open_sock(struct xpc_tls_probes *p, const struct xpc_tls_opts *o)
{
	int err;

	p->sock = sock_bpf__open();
	if (!p->sock)
		return -errno;
	err = o->reuse_maps(o->ctx, p->sock->obj);
	if (!err && p->tls)
		err = bpf_map__reuse_fd(p->sock->maps.tls_calls, bpf_map__fd(p->tls->maps.tls_calls));
	if (!err && p->tls)
		err = bpf_map__reuse_fd(p->sock->maps.tls_last_recv,
					bpf_map__fd(p->tls->maps.tls_last_recv));
	/* One set of `path` rules and counters for both places a request is seen. */
	if (!err && p->tls)
		err = bpf_map__reuse_fd(p->sock->maps.discover_paths,
					bpf_map__fd(p->tls->maps.discover_paths));
	if (!err && p->tls)
		err = bpf_map__reuse_fd(p->sock->maps.discover_stats,
					bpf_map__fd(p->tls->maps.discover_stats));
	/* Libraries mapped after exec: for the plaintext tier and o->watch_maps. */
	p->sock->rodata->watch_maps = p->tls != NULL || o->watch_maps;
	p->sock->rodata->discover_net = o->discover_net;
	err = err ?: pick_hooks(p, o->sock_hooks, p->sock->rodata->watch_maps);
	err = err ?: sock_bpf__load(p->sock);
	return err ?: sock_bpf__attach(p->sock);
}

int xpc_tls_probes_open(struct xpc_tls_probes **out, const struct xpc_tls_opts *o)
{
	struct xpc_tls_probes *p = calloc(1, sizeof(*p));
	int err;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->verbose = o->verbose;
	p->per_pid_mode = o->per_pid;
	if (!o->no_plaintext)
		p->locator = loc_locator_new(loc_locator_default_dir());
	p->libs = xpc_tls_libset_new(p->locator);
	err = p->libs && (p->locator || o->no_plaintext) ? 0 : -ENOMEM;
	if (!err && !o->no_plaintext) {
		err = open_tls(p, o);
		if (err)
			fprintf(stderr, "xperf-bpf: cannot load tls.bpf.o: %s\n", strerror(-err));
	}
	if (!err) {
		err = open_sock(p, o);
		if (err)
			fprintf(stderr, "xperf-bpf: cannot load sock.bpf.o: %s\n", strerror(-err));
	}
	if (err) {
		xpc_tls_probes_close(p);
		return err;
	}
	*out = p;
	return 0;
}

/* The set of examined libraries for pid; sets p->cur_pid. NULL on ENOMEM. */
static struct xpc_tls_libset *libs_for(struct xpc_tls_probes *p, pid_t pid)
{
	struct pid_libs *n;

	p->cur_pid = p->per_pid_mode ? pid : -1;
	if (!p->per_pid_mode)
		return p->libs;
	for (size_t i = 0; i < p->npids; i++)
		if (p->per_pid[i].pid == pid)
			return p->per_pid[i].libs;
	if (xp_grow((void **)&p->per_pid, &p->cap_per_pid, p->npids + 1, sizeof(*n)))
		return NULL;
	n = &p->per_pid[p->npids];
	*n = (struct pid_libs){ pid, xpc_tls_libset_new(p->locator) };
	if (!n->libs)
		return NULL;
	p->npids++;
	return n->libs;
}

int xpc_tls_probes_attach_pid(struct xpc_tls_probes *p, pid_t pid)
{
	struct xpc_tls_libset *set;

	if (!p->tls)
		return 0;
	set = libs_for(p, pid);
	return set ? xpc_tls_libs_scan_pid(set, pid, attach_lib, p) : -ENOMEM;
}

int xpc_tls_probes_attach_root(struct xpc_tls_probes *p, pid_t pid)
{
	char root[64];

	if (!p->tls || p->per_pid_mode)
		return 0;
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	p->cur_pid = -1;
	return xpc_tls_libs_scan_root(p->libs, root, attach_lib, p);
}

int xpc_tls_probes_attach_file(struct xpc_tls_probes *p, const char *path, pid_t pid)
{
	struct xpc_tls_libset *set;

	if (!p->tls)
		return 0;
	set = libs_for(p, pid);
	return set ? xpc_tls_libs_scan_file(set, path, attach_lib, p) : -ENOMEM;
}

int xpc_tls_probes_on_map(struct xpc_tls_probes *p, const struct xk_map_exec *m)
{
	struct xpc_tls_libset *set;
	uint64_t now;
	bool gone;
	int n;

	if (!p->tls)
		return 0;
	p->st.late.maps++;
	set = libs_for(p, m->hdr.tgid);
	if (!set)
		return -ENOMEM;
	if (m->ino && xpc_tls_libset_has(set, makedev(m->dev_major, m->dev_minor), m->ino))
		return 0;
	p->st.late.scans++;
	n = xpc_tls_libs_scan_pid(set, m->hdr.tgid, attach_lib, p);
	gone = n == -ENOENT || n == -ESRCH;
	if (n <= 0 && !gone)
		return n;
	now = xp_now_ns(CLOCK_MONOTONIC);
	/*
	 * A process gone before its new mapping could be examined or probed
	 * (a short client on a busy machine): its socket I/O since the mapping
	 * may have been TLS no probe saw, so it counts too (an upper bound).
	 */
	p->windows[p->nwindows++ % LATE_WINDOWS] =
		(struct late_window){ m->hdr.tgid, m->hdr.ts_ns, now };
	if (gone)
		return n;
	p->st.late.libs += n;
	if (now > m->hdr.ts_ns && now - m->hdr.ts_ns > p->st.late.attach_ns_max)
		p->st.late.attach_ns_max = now - m->hdr.ts_ns;
	return n;
}

void xpc_tls_probes_on_io(struct xpc_tls_probes *p, uint32_t tgid, uint64_t ts_ns)
{
	size_t n = p->nwindows < LATE_WINDOWS ? p->nwindows : LATE_WINDOWS;

	for (size_t i = 0; i < n; i++) {
		const struct late_window *w = &p->windows[i];

		if (w->tgid == tgid && ts_ns > w->from_ns && ts_ns <= w->to_ns) {
			p->st.late.io_unprobed++;
			return;
		}
	}
}

/* Take pid's links out of p into a new array (*out, *n); -ENOMEM leaves them. */
static int take_links(struct xpc_tls_probes *p, pid_t pid, struct bpf_link ***out, size_t *n)
{
	size_t kept = 0, taken = 0;
	struct bpf_link **t;

	for (size_t i = 0; i < p->nlinks; i++)
		taken += p->link_pids[i] == pid;
	*n = taken;
	*out = NULL;
	if (!taken)
		return 0;
	t = malloc(taken * sizeof(*t));
	if (!t)
		return -ENOMEM;
	taken = 0;
	for (size_t i = 0; i < p->nlinks; i++) {
		if (p->link_pids[i] == pid) {
			t[taken++] = p->links[i];
			continue;
		}
		p->links[kept] = p->links[i];
		p->link_pids[kept++] = p->link_pids[i];
	}
	p->nlinks = kept;
	*out = t;
	return 0;
}

/* Forget the libraries examined for pid: a reused pid is examined afresh. */
static void forget_pid(struct xpc_tls_probes *p, pid_t pid)
{
	for (size_t i = 0; i < p->npids; i++) {
		if (p->per_pid[i].pid == pid) {
			xpc_tls_libset_free(p->per_pid[i].libs);
			p->per_pid[i] = p->per_pid[--p->npids];
			return;
		}
	}
}

/* Detach the dead links older than the grace (all with now = UINT64_MAX). */
static void detach_dead(struct xpc_tls_probes *p, uint64_t now)
{
	size_t kept = 0;

	for (size_t i = 0; i < p->ndead; i++) {
		struct dead_links *d = &p->dead[i];

		if (now - d->exit_ns >= DETACH_GRACE_NS)
			xpc_detach_bg(&p->detaching, d->links, d->n);
		else
			p->dead[kept++] = *d;
	}
	p->ndead = kept;
}

int xpc_tls_probes_on_fork(struct xpc_tls_probes *p, pid_t child)
{
	if (!p->per_pid_mode || !p->tls)
		return 0;
	detach_dead(p, xp_now_ns(CLOCK_MONOTONIC));
	forget_pid(p, child);	/* a reused pid whose exit record was lost */
	return xpc_tls_probes_attach_pid(p, child);
}

int xpc_tls_probes_on_exit(struct xpc_tls_probes *p, pid_t pid)
{
	uint64_t now = xp_now_ns(CLOCK_MONOTONIC);
	struct bpf_link **links;
	size_t n;
	int err;

	if (!p->per_pid_mode || pid <= 0)
		return 0;
	detach_dead(p, now);
	forget_pid(p, pid);
	err = take_links(p, pid, &links, &n);
	if (err || !n)
		return err;
	if (xp_grow((void **)&p->dead, &p->cap_dead, p->ndead + 1, sizeof(*p->dead))) {
		xpc_detach_bg(&p->detaching, links, n);
		return (int)n;
	}
	p->dead[p->ndead++] = (struct dead_links){ links, n, now };
	return (int)n;
}

/* An exact host or a `*.` suffix as its discover_hosts key (bpf/sock.h); -ENAMETOOLONG. */
static int host_key(const char *name, struct xk_host_key *k)
{
	bool wild = !strncmp(name, "*.", 2);
	const char *s = wild ? name + 1 : name;	/* "*.example.com": ".example.com" */
	size_t n = strlen(s);

	if (n + !wild > sizeof(k->rname))
		return -ENAMETOOLONG;
	memset(k, 0, sizeof(*k));
	for (size_t i = 0; i < n; i++)
		k->rname[i] = s[n - 1 - i];
	k->prefixlen = (__u32)(n + !wild) * 8;	/* an exact name: its NUL too */
	return 0;
}

/* A path as its discover_paths key: NUL-padded. */
static int path_key(const char *name, char *key)
{
	if (strlen(name) >= XP_DISCOVER_NAME)
		return -ENAMETOOLONG;
	strncpy(key, name, XP_DISCOVER_NAME);	/* NUL-padded */
	return 0;
}

int xpc_tls_probes_discover(struct xpc_tls_probes *p, int kind, const char *const *names,
			    unsigned int n)
{
	bool hosts = kind == XP_DISCOVER_HOST;
	int fd = bpf_map__fd(hosts ? p->sock->maps.discover_hosts : p->sock->maps.discover_paths);
	union {
		struct xk_host_key host;
		char path[XP_DISCOVER_NAME];
	} key, next;
	__u8 one = 1;

	/* Empty it first: a reload removes the names no longer wanted. */
	while (!bpf_map_get_next_key(fd, NULL, &next))
		if (bpf_map_delete_elem(fd, &next))
			break;
	for (unsigned int i = 0; i < n; i++) {
		int err = hosts ? host_key(names[i], &key.host) : path_key(names[i], key.path);

		if (err)
			return err;
		if (bpf_map_update_elem(fd, &key, &one, BPF_ANY))
			return -errno;
	}
	/* SSL writes of untraced processes are read only while path rules exist. */
	if (kind == XP_DISCOVER_PATH && p->tls)
		p->tls->bss->discover_path_rules = n;
	return 0;
}

int xpc_tls_probes_discover_stats(struct xpc_tls_probes *p, uint64_t stats[XP_DSTAT_MAX])
{
	int ncpu = libbpf_num_possible_cpus(), fd = bpf_map__fd(p->sock->maps.discover_stats);
	uint64_t sum[XP_DSTAT_MAX] = { 0 };
	__u64 *v;

	if (ncpu <= 0)
		return -EINVAL;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (__u32 k = 0; k < XP_DSTAT_MAX; k++) {
		if (bpf_map_lookup_elem(fd, &k, v)) {
			free(v);
			return -errno;	/* stats untouched: a counter read never goes down */
		}
		for (int i = 0; i < ncpu; i++)
			sum[k] += v[i];
	}
	free(v);
	memcpy(stats, sum, sizeof(sum));
	return 0;
}

const struct xpc_tls_stats *xpc_tls_probes_stats(const struct xpc_tls_probes *p)
{
	return &p->st;
}

const struct xpc_tls_located *xpc_tls_probes_located(const struct xpc_tls_probes *p, unsigned int id)
{
	return id && id <= p->nlocated ? &p->located[id - 1] : NULL;
}

uint64_t xpc_tls_probes_located_since(const struct xpc_tls_probes *p, unsigned int id,
				     uint32_t tgid)
{
	for (size_t i = 0; i < p->nlocated_at; i++) {
		const struct located_at *a = &p->located_at[i];

		if (a->id == id && (a->pid == -1 || (uint32_t)a->pid == tgid))
			return a->ns;
	}
	return UINT64_MAX;
}

void xpc_tls_probes_close(struct xpc_tls_probes *p)
{
	if (!p)
		return;
	xpc_release_links(p->links, p->nlinks);
	detach_dead(p, UINT64_MAX);
	xpc_detacher_wait(&p->detaching);
	free(p->dead);
	free(p->links);
	free(p->link_pids);
	sock_bpf__destroy(p->sock);
	tls_bpf__destroy(p->tls);
	xpc_tls_libset_free(p->libs);
	loc_locator_free(p->locator);
	free(p->located);
	free(p->located_at);
	for (size_t i = 0; i < p->npids; i++)
		xpc_tls_libset_free(p->per_pid[i].libs);
	free(p->per_pid);
	free(p);
}
