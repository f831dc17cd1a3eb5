// SPDX-License-Identifier: MIT
/*
 * tlscap.c - test harness for the TLS and socket tiers: loads them with
 * their own shared maps (tls_probes.h), runs CMD already traced (the child
 * waits on a pipe until its pid is in `traced` and its libraries have
 * probes), and writes what was captured to DIR:
 *   tls-<tgid>-<ssl>.<w|r>  each direction's plaintext, every record
 *                           written at its `pos` (pwrite), so a lost or
 *                           misplaced record shows in a byte comparison;
 *                           SSL_free's totals give the final length;
 *   sock.tsv                one line per socket send/receive;
 *   summary.json            streams (bytes, gaps, flags, cookie), SNIs,
 *                           connections, drops, libraries probed after
 *                           exec (late_*, tls_probes.h), the socket hooks
 *                           and the plaintext copy (tls_copy) used.
 * Usage: tlscap -o DIR [OPTION...] -- CMD ARGS...  or  -p PID (tlscap --help).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cjson/cJSON.h>

#include "bpf/xperf.h"
#include "bpf/sock.h"
#include "bpf/tls.h"
#include "lib/args.h"
#include "userspace/sni.h"
#include "userspace/sock_hooks.h"
#include "userspace/tls_probes.h"
#include "userspace/traced.h"

#define MAX_STREAMS 256

struct stream {
	__u32 tgid;
	__u64 ssl, sock_id, end, captured, records, gaps;
	__u8 dir, flags;
	int fd;
};

/* The maps every object shares (bpf/common.bpf.h), made here as capture.c makes them. */
struct shared_maps {
	int traced, flags, events, drops;
};

struct cap {
	const char *dir;
	struct shared_maps maps;
	struct xpc_tls_probes *probes;
	struct stream streams[MAX_STREAMS];
	int nstreams;
	FILE *sock_tsv;
	cJSON *snis, *conns;
};

static struct stream *stream_get(struct cap *c, __u32 tgid, __u64 ssl, __u8 dir)
{
	char path[512];
	struct stream *s;

	for (int i = 0; i < c->nstreams; i++) {
		s = &c->streams[i];
		if (s->tgid == tgid && s->ssl == ssl && s->dir == dir)
			return s;
	}
	if (c->nstreams == MAX_STREAMS)
		return NULL;
	s = &c->streams[c->nstreams++];
	*s = (struct stream){ .tgid = tgid, .ssl = ssl, .dir = dir };
	snprintf(path, sizeof(path), "%s/tls-%u-%llx.%c", c->dir, tgid, (unsigned long long)ssl,
		 dir == XP_TLS_WRITE ? 'w' : 'r');
	s->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	return s;
}

static void on_tls(struct cap *c, const struct xk_tls_data *d, size_t size)
{
	struct stream *s;

	if (size < offsetof(struct xk_tls_data, data) ||
	    size != offsetof(struct xk_tls_data, data) + d->len) {
		fprintf(stderr, "tlscap: malformed TLS record (%zu bytes)\n", size);
		return;
	}
	s = stream_get(c, d->hdr.tgid, d->ssl, d->dir);
	if (!s)
		return;
	if (d->pos != s->end)
		s->gaps++;
	if (d->len && pwrite(s->fd, d->data, d->len, d->pos) != (ssize_t)d->len)
		perror("tlscap: pwrite");
	s->end = d->pos + d->len;
	if (d->flags & XP_TLS_LAST)
		s->end = d->pos - d->offset + d->call_len;
	s->captured += d->len;
	s->records++;
	s->flags |= d->flags;
	if (d->sock_id && s->sock_id && d->sock_id != s->sock_id)
		fprintf(stderr, "tlscap: ssl %llx changed socket\n", (unsigned long long)d->ssl);
	if (d->sock_id)
		s->sock_id = d->sock_id;
}

/* SSL_free: the final stream lengths, even where the last records were lost. */
static void on_free(struct cap *c, const struct xk_tls_free *f)
{
	for (__u8 dir = XP_TLS_WRITE; dir <= XP_TLS_READ; dir++) {
		struct stream *s = stream_get(c, f->hdr.tgid, f->ssl, dir);

		if (!s)
			continue;
		if (f->bytes[dir] != s->end)
			s->gaps++;
		s->end = f->bytes[dir];
		if (f->sock_id)
			s->sock_id = f->sock_id;
		if (s->end && s->fd >= 0 && ftruncate(s->fd, s->end))
			perror("tlscap: ftruncate");
	}
}

static cJSON *tuple_json(const struct xk_sock_tuple *t, __u64 sock_id)
{
	cJSON *o = cJSON_CreateObject();
	char a[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, t->daddr, a, sizeof(a));
	cJSON_AddStringToObject(o, "daddr", a);

	cJSON_AddNumberToObject(o, "sock_id", (double)sock_id);
	cJSON_AddNumberToObject(o, "sport", t->sport);
	cJSON_AddNumberToObject(o, "dport", t->dport);
	return o;
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct xk_hdr *h = data;
	struct cap *c = ctx;

	if (size < sizeof(*h))
		return 0;
	if (h->type == XP_EV_MAP_EXEC && size >= sizeof(struct xk_map_exec)) {
		/* A library mapped after exec (dlopen, a new mount namespace). */
		xpc_tls_probes_on_map(c->probes, data);
	} else if (h->type == XP_EV_TLS_DATA) {
		on_tls(c, data, size);
	} else if (h->type == XP_EV_TLS_FREE && size >= sizeof(struct xk_tls_free)) {
		on_free(c, data);
	} else if (h->type == XP_EV_SOCK_DATA && size >= sizeof(struct xk_sock_data)) {
		const struct xk_sock_data *d = data;

		xpc_tls_probes_on_io(c->probes, h->tgid, h->ts_ns);
		fprintf(c->sock_tsv, "%llu\t%llu\t%llu\t%u\t%u\t%llx\t%u\t%u\t%u\t%d\n",
			(unsigned long long)d->call_ns, (unsigned long long)h->ts_ns,
			(unsigned long long)d->sock_id, d->dir, d->len, (unsigned long long)d->ssl,
			d->tuple.sport, d->tuple.dport, h->tgid, d->fd);
	} else if (h->type == XP_EV_SOCK_SNI && size >= offsetof(struct xk_sock_sni, data)) {
		const struct xk_sock_sni *s = data;
		char name[XPC_SNI_MAX];
		enum xpc_sni_result r;
		cJSON *o = tuple_json(&s->tuple, s->sock_id);

		r = xpc_sni_parse((const uint8_t *)s->data,
				 size - offsetof(struct xk_sock_sni, data), name);
		cJSON_AddStringToObject(o, "result", xpc_sni_result_str(r));
		cJSON_AddStringToObject(o, "sni", name);
		cJSON_AddItemToArray(c->snis, o);
	} else if (h->type >= XP_EV_SOCK_CONNECT && h->type <= XP_EV_SOCK_CLOSE &&
		   size >= sizeof(struct xk_sock_conn)) {
		const struct xk_sock_conn *k = data;
		cJSON *o = tuple_json(&k->tuple, k->sock_id);

		cJSON_AddNumberToObject(o, "type", h->type);
		cJSON_AddNumberToObject(o, "fd", k->fd);
		cJSON_AddNumberToObject(o, "tgid", h->tgid);
		cJSON_AddItemToArray(c->conns, o);
	}
	return 0;
}

static cJSON *summary(struct cap *c, int drops_fd)
{
	int ncpu = libbpf_num_possible_cpus();
	cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "streams");
	__u64 vals[ncpu > 0 ? ncpu : 1], total = 0;
	const struct xpc_tls_stats *st = xpc_tls_probes_stats(c->probes);
	const char *copy = st->copy_why;
	char copy_mode[16];

	/* A connection's socket, learned in one direction, names both. */
	for (int i = 0; i < c->nstreams; i++)
		for (int j = 0; j < c->nstreams; j++)
			if (!c->streams[i].sock_id && c->streams[j].ssl == c->streams[i].ssl &&
			    c->streams[j].tgid == c->streams[i].tgid)
				c->streams[i].sock_id = c->streams[j].sock_id;
	for (int i = 0; i < c->nstreams; i++) {
		struct stream *s = &c->streams[i];
		cJSON *o = cJSON_CreateObject();
		char name[64];

		snprintf(name, sizeof(name), "tls-%u-%llx.%c", s->tgid, (unsigned long long)s->ssl,
			 s->dir == XP_TLS_WRITE ? 'w' : 'r');
		cJSON_AddStringToObject(o, "file", name);
		cJSON_AddNumberToObject(o, "tgid", s->tgid);
		cJSON_AddNumberToObject(o, "sock_id", (double)s->sock_id);
		cJSON_AddNumberToObject(o, "bytes", (double)s->end);
		cJSON_AddNumberToObject(o, "captured", (double)s->captured);
		cJSON_AddNumberToObject(o, "records", (double)s->records);
		cJSON_AddNumberToObject(o, "gaps", (double)s->gaps);
		cJSON_AddBoolToObject(o, "truncated", s->flags & XP_TLS_TRUNC);
		cJSON_AddBoolToObject(o, "copy_failed", s->flags & XP_TLS_COPY_FAIL);
		cJSON_AddItemToArray(arr, o);
		close(s->fd);
	}
	for (__u32 k = 0; k < XP_EV_TYPE_MAX; k++)
		if (!bpf_map_lookup_elem(drops_fd, &k, vals))
			for (int i = 0; i < ncpu; i++)
				total += vals[i];
	cJSON_AddNumberToObject(root, "drops", (double)total);
	cJSON_AddStringToObject(root, "socket_hooks",
				xpc_sock_hooks_name(st->sock_hooks));
	if (copy) {	/* "direct" or "scratch", the words before the reason */
		snprintf(copy_mode, sizeof(copy_mode), "%.*s", (int)strcspn(copy, ":"), copy);
		cJSON_AddStringToObject(root, "tls_copy", copy_mode);
	}
	cJSON_AddNumberToObject(root, "late_libs", (double)st->late.libs);
	cJSON_AddNumberToObject(root, "late_rescans", (double)st->late.scans);
	cJSON_AddNumberToObject(root, "late_attach_ms_max", st->late.attach_ns_max / 1e6);
	cJSON_AddNumberToObject(root, "late_io_unprobed", (double)st->late.io_unprobed);
	cJSON_AddItemToObject(root, "snis", c->snis);
	cJSON_AddItemToObject(root, "conns", c->conns);
	return root;
}

/* The file execvp would run, so its probes are in place before it starts. */
static void attach_cmd(struct xpc_tls_probes *p, const char *cmd, pid_t pid)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(cmd, '/') || !path) {
		xpc_tls_probes_attach_file(p, cmd, pid);
		return;
	}
	for (const char *d = path; *d;) {
		size_t n = strcspn(d, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, d, cmd);
		if (!access(buf, X_OK)) {
			xpc_tls_probes_attach_file(p, buf, pid);
			return;
		}
		d += n + (d[n] == ':');
	}
}

/* Create the shared maps, the ring ring_size bytes; 0, or -1 (said on stderr). */
static int create_maps(struct shared_maps *m, uint32_t ring_size)
{
	m->traced = bpf_map_create(BPF_MAP_TYPE_HASH, "traced", sizeof(__u32),
				   sizeof(struct xk_traced), XP_MAX_TRACED, NULL);
	m->flags = xpc_traced_flags_create();
	m->events = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "events", 0, 0, ring_size, NULL);
	m->drops = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "drops", sizeof(__u32),
				  sizeof(__u64), XP_EV_TYPE_MAX, NULL);
	if (m->traced < 0 || m->flags < 0 || m->events < 0 || m->drops < 0) {
		fprintf(stderr, "tlscap: cannot create the shared maps\n");
		return -1;
	}
	return 0;
}

/* xpc_tls_opts.reuse_maps: obj shares the maps of struct shared_maps. */
static int reuse_maps(void *ctx, struct bpf_object *obj)
{
	const struct shared_maps *m = ctx;
	const struct { const char *name; int fd; } shared[] = {
		{ "traced", m->traced }, { "traced_flags", m->flags },
		{ "events", m->events }, { "drops", m->drops },
	};

	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(obj, shared[i].name);
		int err = map ? bpf_map__reuse_fd(map, shared[i].fd) : -ENOENT;

		if (err)
			return err;
	}
	return 0;
}

/* Put pid in the traced set (its traced_flags byte first); non-zero on failure. */
static int trace_pid(const struct shared_maps *m, pid_t pid, const struct xk_traced *t)
{
	return xpc_traced_add(m->traced, m->flags, pid, t);
}

/* Fork CMD held on a pipe; trace it, then let it exec. */
static pid_t spawn_traced(struct cap *c, char **argv)
{
	struct xpc_tls_probes *p = c->probes;
	struct xk_traced t = { 0 };
	int gate[2];
	pid_t pid;
	char go;

	if (pipe(gate))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(gate[1]);
		if (read(gate[0], &go, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "tlscap: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(gate[0]);
	t.root_tgid = pid;
	if (pid < 0 || trace_pid(&c->maps, pid, &t) ||
	    xpc_tls_probes_attach_pid(p, pid) < 0)
		fprintf(stderr, "tlscap: cannot trace the child\n");
	else
		attach_cmd(p, argv[0], pid);
	if (write(gate[1], "g", 1) != 1)
		perror("tlscap: write");
	close(gate[1]);
	return pid;
}

/* attach --pid: trace a running process; its connections are mid-stream. */
static pid_t trace_running(struct cap *c, pid_t pid)
{
	struct xk_traced t = { .root_tgid = pid };

	if (trace_pid(&c->maps, pid, &t) || xpc_tls_probes_attach_pid(c->probes, pid) < 0) {
		fprintf(stderr, "tlscap: cannot trace %d\n", pid);
		return -1;
	}
	fprintf(stderr, "tlscap: tracing %d\n", pid);
	return pid;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static const struct argp_option options[] = {
	{ NULL, 'o', "DIR", 0, "where the capture goes (required)", 0 },
	{ NULL, 'c', "CAP", 0, "bytes captured per SSL call", 0 },
	{ NULL, 'r', "RING", 0, "ring bytes", 0 },
	{ NULL, 'n', NULL, 0, "no plaintext tier (--no-plaintext)", 0 },
	{ NULL, 'p', "PID", 0, "attach to PID until it exits, instead of running CMD", 0 },
	{ NULL, 'P', NULL, 0, "uprobes per traced process (tls_probes.h per_pid)", 0 },
	{ NULL, 'S', "MODE", 0, "the socket tier's hooks: auto, socket, syscalls", 0 },
	{ NULL, 'C', NULL, 0, "plaintext through the per-CPU scratch (kernels without "
	  "bpf_probe_read_user_dynptr)", 0 },
	{ 0 },
};

struct args {
	struct xpc_tls_opts o;
	uint32_t ring_size;
	const char *dir;
	char **cmd;
	pid_t attach;
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case 'o': a->dir = arg; break;
	case 'c': a->o.cap_bytes = xp_args_integer(state, arg, 1, UINT32_MAX, "bytes"); break;
	case 'r': a->ring_size = xp_args_integer(state, arg, 4096, 1 << 30, "bytes"); break;
	case 'n': a->o.no_plaintext = true; break;
	case 'p': a->attach = xp_args_integer(state, arg, 1, 4194304, "a process id"); break;
	case 'P': a->o.per_pid = true; break;
	case 'C': a->o.copy_scratch = true; break;
	case 'S':
		if ((a->o.sock_hooks = xpc_sock_hooks_parse(arg)) < 0)
			xp_args_invalid(state, "auto, socket or syscalls");
		break;
	case ARGP_KEY_ARG:
		a->cmd = &state->argv[state->next - 1];
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (!a->dir || !a->cmd == !a->attach)
			xp_args_fail(state, "-o DIR and either -p PID or -- CMD ARGS...");
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct xp_args args = { "tlscap", options, parse_arg, "-- CMD ARGS...",
					     "Test harness of the TLS and socket tiers.",
					     ARGP_IN_ORDER, NULL };
	struct args a = { .o = { .verbose = true }, .ring_size = 1 << 24 };	/* as built */
	struct cap c = { 0 };
	struct xpc_tls_probes *p = NULL;
	struct ring_buffer *rb = NULL;
	int status = 0, err;
	char path[512];
	cJSON *sum;
	pid_t pid;

	if (xp_args_parse(&args, argc, argv, &a))
		return 64;
	c.dir = a.dir;
	snprintf(path, sizeof(path), "%s/sock.tsv", c.dir);
	c.sock_tsv = fopen(path, "we");
	c.snis = cJSON_CreateArray();
	c.conns = cJSON_CreateArray();
	a.o.reuse_maps = reuse_maps;
	a.o.ctx = &c.maps;
	err = c.sock_tsv && !create_maps(&c.maps, a.ring_size) ? xpc_tls_probes_open(&p, &a.o) : -1;
	if (err)
		return 1;
	c.probes = p;
	rb = ring_buffer__new(c.maps.events, on_event, &c, NULL);
	if (!rb)
		return 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (a.attach > 0) {
		pid = trace_running(&c, a.attach);
	} else {
		pid = spawn_traced(&c, a.cmd);
	}
	while (pid > 0 && !stop) {
		ring_buffer__poll(rb, 100);
		if (a.attach > 0 ? kill(pid, 0) != 0 : waitpid(pid, &status, WNOHANG) == pid)
			break;
	}
	while (ring_buffer__consume(rb) > 0)
		;
	sum = summary(&c, c.maps.drops);
	if (a.attach <= 0)	/* not our child: its status is the caller's to check */
		cJSON_AddNumberToObject(sum, "exit_status",
					WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	snprintf(path, sizeof(path), "%s/summary.json", c.dir);
	{
		char *txt = cJSON_Print(sum);
		FILE *f = fopen(path, "we");

		if (f && txt)
			fputs(txt, f);
		if (f)
			fclose(f);
		free(txt);
	}
	cJSON_Delete(sum);
	fclose(c.sock_tsv);
	ring_buffer__free(rb);
	xpc_tls_probes_close(p);
	return pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
