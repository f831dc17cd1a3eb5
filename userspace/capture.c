// SPDX-License-Identifier: MIT
/*
 * capture.c - the capture core: shared maps, module lifecycle, the ring
 * buffer consumer and the drop counters.
 *
 * The four maps every BPF object shares (bpf/common.bpf.h) are created
 * here, before any object is opened, and handed to each object with
 * bpf_map__reuse_fd(): one filter, one ring, one drop array whatever the
 * number of objects. Modules start in modules.c order; a failure stops
 * those already started and xpc_open() fails with the module's message.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "userspace/capture.h"
#include "userspace/module.h"
#include "userspace/features.h"
#include "userspace/procfs.h"
#include "userspace/traced.h"

#define XPC_MAX_MODULES 16

struct xpc {
	struct xpc_opts opts;
	int traced_fd;
	int flags_fd;		/* traced_flags: one byte per tgid (userspace/traced.h) */
	int events_fd;
	int drops_fd;
	struct ring_buffer *rb;
	const volatile uint64_t *ring_pos;	/* consumer page, then producer page (read-only) */
	bool sample_ring;			/* at the next record: the first of a read */
	uint64_t ring_used, ring_used_max;
	void *state[XPC_MAX_MODULES];
	bool running[XPC_MAX_MODULES];
	uint64_t records[XP_EV_TYPE_MAX];
	uint64_t malformed;
	char err[256];
};

int xpc_set_error(struct xpc *c, int neg_errno, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return neg_errno;
}

int xpc_scan_result(struct xpc *c, int n, __u32 tgid, const char *what)
{
	if (n >= 0 || n == -ENOENT || n == -ESRCH)
		return 0;
	return xpc_set_error(c, n, "%s of %u: %s", what, tgid, strerror(-n));
}

const char *xpc_error(const struct xpc *c)
{
	return c->err;
}

const struct xpc_opts *xpc_options(const struct xpc *c)
{
	return &c->opts;
}

void *xpc_module_state(const struct xpc *c, const struct xpc_module *m)
{
	for (unsigned int i = 0; i < xpc_nmodules && i < XPC_MAX_MODULES; i++)
		if (xpc_modules[i] == m && c->running[i])
			return c->state[i];
	return NULL;
}

int xpc_reuse_maps(struct xpc *c, struct bpf_object *obj)
{
	const struct { const char *name; int fd; } shared[] = {
		{ "traced", c->traced_fd },
		{ "traced_flags", c->flags_fd },
		{ "events", c->events_fd },
		{ "drops", c->drops_fd },
	};

	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, shared[i].name);
		int err = m ? bpf_map__reuse_fd(m, shared[i].fd) : -ENOENT;

		if (err)
			return xpc_set_error(c, err, "%s: cannot share map %s: %s",
					     bpf_object__name(obj), shared[i].name, strerror(-err));
	}
	return 0;
}

int xpc_load_skeleton(struct xpc *c, struct bpf_object_skeleton *s)
{
	struct bpf_object *obj = *s->obj;
	int err = xpc_reuse_maps(c, obj);

	if (err)
		return err;
	xpc_autoload_tp(obj, c->opts.raw_tp);
	err = bpf_object__load_skeleton(s);
	if (err)
		return xpc_set_error(c, err, "%s: cannot load BPF programs: %s", s->name,
				     strerror(-err));
	err = bpf_object__attach_skeleton(s);
	if (err)
		return xpc_set_error(c, err, "%s: cannot attach: %s", s->name, strerror(-err));
	return 0;
}

static const char *const type_names[XP_EV_TYPE_MAX] = {
	[XP_EV_NONE] = "traced_full",
	[XP_EV_FORK] = "fork",
	[XP_EV_EXEC] = "exec",
	[XP_EV_EXIT] = "exit",
	[XP_EV_SCHED] = "sched",
	[XP_EV_THREAD_EXIT] = "thread_exit",
	[XP_EV_TLS_DATA] = "tls_data",
	[XP_EV_TLS_HANDSHAKE] = "tls_handshake",
	[XP_EV_TLS_FREE] = "tls_free",
	[XP_EV_MAP_EXEC] = "map_exec",
	[XP_EV_SOCK_CONNECT] = "sock_connect",
	[XP_EV_SOCK_ACCEPT] = "sock_accept",
	[XP_EV_SOCK_DATA] = "sock_data",
	[XP_EV_SOCK_CLOSE] = "sock_close",
	[XP_EV_SOCK_SNI] = "sock_sni",
	[XP_EV_SOCK_DISCOVER] = "sock_discover",
	[XP_EV_CUDA_CALL] = "cuda_call",
};

const char *xpc_type_name(unsigned int type)
{
	static __thread char buf[16];

	if (type < XP_EV_TYPE_MAX && type_names[type])
		return type_names[type];
	snprintf(buf, sizeof(buf), "type_%u", type);
	return buf;
}

static int create_maps(struct xpc *c)
{
	c->traced_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "traced", sizeof(__u32),
				      sizeof(struct xk_traced), XP_MAX_TRACED, NULL);
	if (c->traced_fd < 0)
		return xpc_set_error(c, -errno, "cannot create map traced: %s", strerror(errno));
	c->flags_fd = xpc_traced_flags_create();
	if (c->flags_fd < 0)
		return xpc_set_error(c, c->flags_fd, "cannot create map traced_flags: %s",
				     strerror(-c->flags_fd));
	c->events_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "events", 0, 0,
				      c->opts.ring_size, NULL);
	if (c->events_fd < 0)
		return xpc_set_error(c, -errno, "cannot create a %zu-byte ring buffer: %s",
				     c->opts.ring_size, strerror(errno));
	c->drops_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "drops", sizeof(__u32),
				     sizeof(__u64), XP_EV_TYPE_MAX, NULL);
	if (c->drops_fd < 0)
		return xpc_set_error(c, -errno, "cannot create map drops: %s", strerror(errno));
	return 0;
}

/* Smallest valid size of a record of type (< XP_EV_TYPE_MAX); UINT32_MAX: a type nobody owns. */
static __u32 min_size(__u32 type)
{
	for (unsigned int i = 0; i < xpc_nmodules; i++) {
		__u32 n = xpc_modules[i]->min_size ? xpc_modules[i]->min_size[type] : 0;

		if (n)
			return n;
	}
	return UINT32_MAX;
}

static void on_process(struct xpc *c, __u32 tgid)
{
	for (unsigned int i = 0; i < xpc_nmodules && i < XPC_MAX_MODULES; i++) {
		const struct xpc_module *m = xpc_modules[i];
		int err;

		if (!c->running[i] || !m->on_process)
			continue;
		err = m->on_process(c, c->state[i], tgid);
		if (err && c->opts.verbose)
			fprintf(stderr, "xperf-bpf: %s: %s\n", m->name, c->err);
	}
}

static void on_record(struct xpc *c, const struct xk_hdr *h)
{
	for (unsigned int i = 0; i < xpc_nmodules && i < XPC_MAX_MODULES; i++) {
		const struct xpc_module *m = xpc_modules[i];

		if (c->running[i] && m->on_record && m->on_record(c, c->state[i], h) &&
		    c->opts.verbose)
			fprintf(stderr, "xperf-bpf: %s: %s\n", m->name, c->err);
	}
}

/* Whether every module's gate lets the record through now. */
static bool gated(struct xpc *c, const struct xk_hdr *h)
{
	for (unsigned int i = 0; i < xpc_nmodules && i < XPC_MAX_MODULES; i++) {
		const struct xpc_module *m = xpc_modules[i];

		if (c->running[i] && m->gate && m->gate(c, c->state[i], h) != XPC_DELIVER)
			return true;
	}
	return false;
}

int xpc_release(struct xpc *c, const struct xk_hdr *rec)
{
	return c->opts.on_event ? c->opts.on_event(c->opts.ctx, rec) : 0;
}

/* What the ring held when a read began: the consumer has not moved past its first record. */
static void sample_ring(struct xpc *c)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	c->sample_ring = false;
	if (!c->ring_pos)
		return;
	c->ring_used = c->ring_pos[page / 8] - c->ring_pos[0];
	if (c->ring_used > c->ring_used_max)
		c->ring_used_max = c->ring_used;
}

void xpc_health(const struct xpc *c, struct xpc_health *h)
{
	memset(h, 0, sizeof(*h));
	h->ring_size = c->opts.ring_size;
	h->ring_used = c->ring_used;
	h->ring_used_max = c->ring_used_max;
	for (unsigned int i = 0; i < xpc_nmodules && i < XPC_MAX_MODULES; i++)
		if (c->running[i] && xpc_modules[i]->health)
			xpc_modules[i]->health(c->state[i], h);
}

/* The ring's positions, mapped read-only (ring fill in xpc_health); NULL where refused. */
static const volatile uint64_t *map_ring_pos(int fd)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, 2 * page, PROT_READ, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int handle_record(void *ctx, void *data, size_t size)
{
	struct xpc *c = ctx;
	const struct xk_hdr *h = data;

	if (size < sizeof(*h) || h->size != size || h->type >= XP_EV_TYPE_MAX ||
	    size < min_size(h->type)) {
		c->malformed++;
		return 0;
	}
	c->records[h->type]++;
	if (c->sample_ring)
		sample_ring(c);
	/* An untraced process's exec, for discovery: no module acts on it. */
	if (h->type == XP_EV_EXEC && ((const struct xk_exec *)h)->flags & XP_EXEC_UNTRACED)
		return xpc_release(c, h);
	if (h->type == XP_EV_EXEC)
		on_process(c, h->tgid);
	on_record(c, h);
	return gated(c, h) ? 0 : xpc_release(c, h);
}

static void set_defaults(struct xpc_opts *o)
{
	if (!o->ring_size)
		o->ring_size = XPC_RING_DEFAULT;
	if (!o->payload_cap)
		o->payload_cap = XPC_PAYLOAD_CAP_DEFAULT;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static int start_modules(struct xpc *c)
{
	for (unsigned int i = 0; i < xpc_nmodules && i < XPC_MAX_MODULES; i++) {
		int err = xpc_modules[i]->start(c, &c->state[i]);

		if (err == -EOPNOTSUPP) {
			if (c->opts.verbose)
				fprintf(stderr, "xperf-bpf: %s: off\n", xpc_modules[i]->name);
			continue;
		}
		if (err)
			return err;
		c->running[i] = true;
	}
	return 0;
}

int xpc_open(const struct xpc_opts *opts, struct xpc **out, char *err, size_t errlen)
{
	struct xpc *c = calloc(1, sizeof(*c));
	int ret;

	*out = NULL;
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	c->opts = *opts;
	set_defaults(&c->opts);
	c->traced_fd = c->flags_fd = c->events_fd = c->drops_fd = -1;
	if (!c->opts.verbose)
		libbpf_set_print(libbpf_print);
	ret = xpc_preflight(c->err, sizeof(c->err));
	if (!ret)
		ret = create_maps(c);
	if (!ret)
		ret = start_modules(c);
	if (!ret) {
		c->rb = ring_buffer__new(c->events_fd, handle_record, c, NULL);
		if (!c->rb)
			ret = xpc_set_error(c, -errno, "cannot open the ring buffer: %s",
					    strerror(errno));
		else
			c->ring_pos = map_ring_pos(c->events_fd);
	}
	if (ret) {
		snprintf(err, errlen, "%s", c->err);
		xpc_close(c);
		return ret;
	}
	*out = c;
	return 0;
}

/* Into the kernel filter: tgid and its live descendants (the kernel adds later forks). */
static int filter_tree(struct xpc *c, __u32 tgid, __u32 root, __u32 depth)
{
	struct xk_traced v = { .depth = depth, .root_tgid = root };
	__u32 kids[256];
	int n, err;

	err = xpc_traced_add(c->traced_fd, c->flags_fd, tgid, &v);
	if (err)
		return xpc_set_error(c, err, "cannot trace pid %u: %s", tgid, strerror(-err));
	n = xpc_proc_children(tgid, kids, sizeof(kids) / sizeof(kids[0]));
	for (int i = 0; i < n; i++)
		filter_tree(c, kids[i], root, depth + 1);
	return 0;
}

/* Every module's probes for tgid and its live descendants. */
static void probe_tree(struct xpc *c, __u32 tgid)
{
	__u32 kids[256];
	int n;

	on_process(c, tgid);
	n = xpc_proc_children(tgid, kids, sizeof(kids) / sizeof(kids[0]));
	for (int i = 0; i < n; i++)
		probe_tree(c, kids[i]);
}

static int add_tree(struct xpc *c, __u32 tgid)
{
	int err;

	/*
	 * A running process (filter_first): its records from now on, probes
	 * as they come (a locator run can take a second). A held one (record's
	 * gate): probes first, so that attach time is not its blocked time.
	 */
	if (c->opts.filter_first) {
		err = filter_tree(c, tgid, tgid, 0);
		if (!err)
			probe_tree(c, tgid);
		return err;
	}
	probe_tree(c, tgid);
	return filter_tree(c, tgid, tgid, 0);
}

int xpc_add_command(struct xpc *c, pid_t pid, const char *path)
{
	for (unsigned int i = 0; i < xpc_nmodules && i < XPC_MAX_MODULES; i++) {
		const struct xpc_module *m = xpc_modules[i];

		if (!c->running[i] || !m->on_command)
			continue;
		if (m->on_command(c, c->state[i], (__u32)pid, path) && c->opts.verbose)
			fprintf(stderr, "xperf-bpf: %s: %s\n", m->name, c->err);
	}
	return 0;
}

int xpc_add_pid(struct xpc *c, pid_t pid)
{
	int tgid;

	if (pid <= 0)
		return xpc_set_error(c, -EINVAL, "invalid pid %d", (int)pid);
	tgid = xpc_proc_tgid(pid);
	if (tgid < 0)
		return xpc_set_error(c, -ESRCH, "no such process: %d", (int)pid);
	return add_tree(c, tgid);
}

int xpc_untrace(struct xpc *c, pid_t tgid)
{
	return xpc_traced_remove(c->traced_fd, c->flags_fd, (__u32)tgid);
}

int xpc_poll(struct xpc *c, int timeout_ms)
{
	int n, m;

	c->sample_ring = true;
	n = ring_buffer__poll(c->rb, timeout_ms);

	if (n == -EINTR)
		n = 0;
	if (n < 0)
		return n;
	/* BPF wakes us only past a fill level (xk_ring_wakeup): take the rest. */
	m = ring_buffer__consume(c->rb);
	return m < 0 ? m : n + m;
}

int xpc_drain(struct xpc *c)
{
	c->sample_ring = true;
	return ring_buffer__consume(c->rb);
}

int xpc_counts(struct xpc *c, struct xpc_counts *counts)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *v;

	memset(counts, 0, sizeof(*counts));
	if (ncpu <= 0)
		return xpc_set_error(c, ncpu ? ncpu : -EINVAL, "cannot count CPUs");
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (__u32 t = 0; t < XP_EV_TYPE_MAX; t++) {
		if (bpf_map_lookup_elem(c->drops_fd, &t, v)) {
			free(v);
			memset(counts, 0, sizeof(*counts));
			return xpc_set_error(c, -errno, "cannot read drop counters: %s",
					     strerror(errno));
		}
		for (int i = 0; i < ncpu; i++)
			counts->drops[t] += v[i];
		counts->records[t] = c->records[t];
	}
	counts->malformed = c->malformed;
	free(v);
	return 0;
}

uint64_t xpc_counts_dropped(const struct xpc_counts *counts)
{
	uint64_t n = 0;

	for (int t = 0; t < XP_EV_TYPE_MAX; t++)
		n += counts->drops[t];
	return n;
}

void xpc_close(struct xpc *c)
{
	if (!c)
		return;
	ring_buffer__free(c->rb);
	if (c->ring_pos)
		munmap((void *)c->ring_pos, 2 * (size_t)sysconf(_SC_PAGESIZE));
	for (int i = (int)xpc_nmodules - 1; i >= 0; i--)
		if (i < XPC_MAX_MODULES && c->running[i])
			xpc_modules[i]->stop(c->state[i]);
	if (c->traced_fd >= 0)
		close(c->traced_fd);
	if (c->flags_fd >= 0)
		close(c->flags_fd);
	if (c->events_fd >= 0)
		close(c->events_fd);
	if (c->drops_fd >= 0)
		close(c->drops_fd);
	free(c);
}
