// SPDX-License-Identifier: MIT
/*
 * tls_probes.c - lifecycle of the tls and sock skeletons (tls_probes.h):
 * open -> reuse the shared maps -> configure rodata -> load -> attach.
 *
 * The sock object reuses the tls object's `tls_calls` so the TLS return
 * probe sees the socket cookie the nested tcp_sendmsg/tcp_recvmsg wrote.
 * Uprobes go on each library once, by symbol name (libbpf resolves it in
 * .dynsym/.symtab), with pid -1: every process mapping that inode is
 * covered and the kernel-side traced-set check filters the rest.
 */
#include "userspace/tls_probes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/sock.skel.h"
#include "bpf/tls.skel.h"
#include "bpf/xperf.h"
#include "bpf/tls.h"
#include "userspace/tls_libs.h"

struct xp_tls_probes {
	struct tls_bpf *tls;
	struct sock_bpf *sock;
	struct tls_libset *libs;
	struct bpf_link **links;
	size_t nlinks, cap;
	bool verbose;
};

/* The uprobes of one library: function, program, return probe or not. */
struct uprobe_spec {
	const char *func;
	unsigned int sym;	/* enum tls_sym bit the library must export */
	bool ret;
};

static const struct uprobe_spec uprobes[] = {
	{ "SSL_write", TLS_SYM_WRITE, false },	  { "SSL_write", TLS_SYM_WRITE, true },
	{ "SSL_read", TLS_SYM_READ, false },	  { "SSL_read", TLS_SYM_READ, true },
	{ "SSL_write_ex", TLS_SYM_WRITE_EX, false }, { "SSL_write_ex", TLS_SYM_WRITE_EX, true },
	{ "SSL_read_ex", TLS_SYM_READ_EX, false },	  { "SSL_read_ex", TLS_SYM_READ_EX, true },
	{ "SSL_free", TLS_SYM_FREE, false },
};

static struct bpf_program *uprobe_prog(struct tls_bpf *t, const struct uprobe_spec *u)
{
	if (u->ret)
		return t->progs.ssl_rw_exit;
	if (!strcmp(u->func, "SSL_write"))
		return t->progs.ssl_write_enter;
	if (!strcmp(u->func, "SSL_read"))
		return t->progs.ssl_read_enter;
	if (!strcmp(u->func, "SSL_write_ex"))
		return t->progs.ssl_write_ex_enter;
	if (!strcmp(u->func, "SSL_read_ex"))
		return t->progs.ssl_read_ex_enter;
	return t->progs.ssl_free;
}

static int keep_link(struct xp_tls_probes *p, struct bpf_link *l)
{
	if (p->nlinks == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 32;
		struct bpf_link **n = realloc(p->links, cap * sizeof(*n));

		if (!n) {
			bpf_link__destroy(l);
			return -ENOMEM;
		}
		p->links = n;
		p->cap = cap;
	}
	p->links[p->nlinks++] = l;
	return 0;
}

/* tls_lib_cb: attach every probe the library has symbols for. */
static int attach_lib(void *ctx, const char *path, unsigned int syms)
{
	struct xp_tls_probes *p = ctx;

	for (size_t i = 0; i < sizeof(uprobes) / sizeof(uprobes[0]); i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = uprobes[i].func,
			    .retprobe = uprobes[i].ret);
		struct bpf_link *l;
		int err;

		if (!(syms & uprobes[i].sym))
			continue;
		l = bpf_program__attach_uprobe_opts(uprobe_prog(p->tls, &uprobes[i]), -1, path, 0,
						    &uo);
		if (!l) {
			err = -errno;
			fprintf(stderr, "xperf-bpf: %s: cannot attach uprobe to %s: %s\n", path,
				uprobes[i].func, strerror(-err));
			return err;
		}
		err = keep_link(p, l);
		if (err)
			return err;
	}
	if (p->verbose)
		fprintf(stderr, "xperf-bpf: TLS probes on %s\n", path);
	return 0;
}

static int open_tls(struct xp_tls_probes *p, const struct xp_tls_opts *o)
{
	int err;

	p->tls = tls_bpf__open();
	if (!p->tls)
		return -errno;
	if (o->reuse_maps)
		err = o->reuse_maps(o->ctx, p->tls->obj);
	else
		err = o->ring_size ? bpf_map__set_max_entries(p->tls->maps.events, o->ring_size) : 0;
	if (err)
		return err;
	/* Configuration (rodata), set between open and load. */
	p->tls->rodata->cap_bytes = o->cap_bytes ? o->cap_bytes : XP_TLS_CAP_DEFAULT;
	return tls_bpf__load(p->tls);
}

/* sock shares the loader's maps and, with the TLS tier, its tls_calls. */
static int open_sock(struct xp_tls_probes *p, const struct xp_tls_opts *o)
{
	int err;

	p->sock = sock_bpf__open();
	if (!p->sock)
		return -errno;
	if (o->reuse_maps) {
		err = o->reuse_maps(o->ctx, p->sock->obj);
	} else if (p->tls) {
		err = bpf_map__reuse_fd(p->sock->maps.traced, bpf_map__fd(p->tls->maps.traced));
		err = err ?: bpf_map__reuse_fd(p->sock->maps.events,
					       bpf_map__fd(p->tls->maps.events));
		err = err ?: bpf_map__reuse_fd(p->sock->maps.drops, bpf_map__fd(p->tls->maps.drops));
	} else {
		err = 0;
	}
	if (!err && p->tls)
		err = bpf_map__reuse_fd(p->sock->maps.tls_calls, bpf_map__fd(p->tls->maps.tls_calls));
	if (!err && p->tls)
		err = bpf_map__reuse_fd(p->sock->maps.tls_last_recv,
					bpf_map__fd(p->tls->maps.tls_last_recv));
	err = err ?: sock_bpf__load(p->sock);
	return err ?: sock_bpf__attach(p->sock);
}

int xp_tls_probes_open(struct xp_tls_probes **out, const struct xp_tls_opts *o)
{
	struct xp_tls_probes *p = calloc(1, sizeof(*p));
	int err;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->verbose = o->verbose;
	p->libs = tls_libset_new();
	err = p->libs ? 0 : -ENOMEM;
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
		xp_tls_probes_close(p);
		return err;
	}
	*out = p;
	return 0;
}

int xp_tls_probes_attach_pid(struct xp_tls_probes *p, pid_t pid)
{
	if (!p->tls)
		return 0;
	return tls_libs_scan_pid(p->libs, pid, attach_lib, p);
}

int xp_tls_probes_attach_file(struct xp_tls_probes *p, const char *path)
{
	if (!p->tls)
		return 0;
	return tls_libs_scan_file(p->libs, path, attach_lib, p);
}

int xp_tls_probes_map_fd(const struct xp_tls_probes *p, const char *name)
{
	struct bpf_object *obj = p->tls ? p->tls->obj : p->sock->obj;
	struct bpf_map *m = bpf_object__find_map_by_name(obj, name);

	return m ? bpf_map__fd(m) : -1;
}

void xp_tls_probes_close(struct xp_tls_probes *p)
{
	if (!p)
		return;
	for (size_t i = p->nlinks; i > 0; i--)
		bpf_link__destroy(p->links[i - 1]);
	free(p->links);
	sock_bpf__destroy(p->sock);
	tls_bpf__destroy(p->tls);
	tls_libset_free(p->libs);
	free(p);
}
