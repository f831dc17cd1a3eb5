// SPDX-License-Identifier: MIT
/*
 * tls_module.c - the tls module of the capture core (module.h): loads the
 * TLS plaintext tier (bpf/tls.bpf.c) and the socket tier (bpf/sock.bpf.c)
 * through tls_probes.h, attaches uprobes to the TLS libraries of every
 * process that becomes traced (on_process: at attach and after each exec),
 * and turns their records into JSON.
 *
 * Privacy: payload bytes reach userspace so that parsers can read them in
 * memory; JSON carries payload text only when the core was opened with
 * capture_payloads, and then with credential headers redacted (redact.h).
 * The ClientHello prefix is reduced to its server name here, never output.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <bpf/libbpf.h>

#include "bpf/xperf.h"
#include "bpf/sock.h"
#include "bpf/tls.h"
#include "userspace/module.h"
#include "userspace/redact.h"
#include "userspace/sni.h"
#include "userspace/tls_probes.h"

const struct xpc_module xpc_mod_tls;

/* to_json has no context argument: the one option it needs, set at start. */
static bool keep_payloads;

static int reuse(void *ctx, struct bpf_object *obj)
{
	return xpc_reuse_maps(ctx, obj);
}

static int tls_start(struct xpc *c, void **state)
{
	const struct xpc_opts *xo = xpc_options(c);
	struct xp_tls_opts o = {
		.cap_bytes = xo->payload_cap,
		.no_plaintext = xo->no_plaintext,
		.verbose = xo->verbose > 0,
		.reuse_maps = reuse,
		.ctx = c,
	};
	struct xp_tls_probes *p;
	int err;

	keep_payloads = xo->capture_payloads;
	err = xp_tls_probes_open(&p, &o);
	if (err)
		return xpc_set_error(c, err, "tls: cannot load the TLS/socket probes: %s",
				     strerror(-err));
	*state = p;
	return 0;
}

static int tls_on_process(struct xpc *c, void *state, __u32 tgid)
{
	int n = xp_tls_probes_attach_pid(state, tgid);

	/* A process gone before we looked: nothing to attach, not an error. */
	if (n == -ENOENT || n == -ESRCH)
		return 0;
	if (n < 0)
		return xpc_set_error(c, n, "tls: cannot attach to the TLS libraries of %u: %s",
				     tgid, strerror(-n));
	return 0;
}

static __u32 tls_min_size(__u32 type)
{
	switch (type) {
	case XP_EV_TLS_DATA:
		return offsetof(struct xp_tls_data, data);
	case XP_EV_TLS_FREE:
		return sizeof(struct xp_tls_free);
	case XP_EV_SOCK_CONNECT:
	case XP_EV_SOCK_ACCEPT:
	case XP_EV_SOCK_CLOSE:
		return sizeof(struct xp_sock_conn);
	case XP_EV_SOCK_DATA:
		return sizeof(struct xp_sock_data);
	case XP_EV_SOCK_SNI:
		return offsetof(struct xp_sock_sni, data);
	default:
		return 0;
	}
}

static void add_hex(cJSON *o, const char *key, __u64 v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	cJSON_AddStringToObject(o, key, buf);
}

static void add_tuple(cJSON *o, const struct xp_sock_tuple *t)
{
	static const __u8 v4mapped[12] = { [10] = 0xff, [11] = 0xff };
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	bool v4 = !memcmp(t->saddr, v4mapped, 12) && !memcmp(t->daddr, v4mapped, 12);

	inet_ntop(v4 ? AF_INET : AF_INET6, v4 ? t->saddr + 12 : t->saddr, s, sizeof(s));
	inet_ntop(v4 ? AF_INET : AF_INET6, v4 ? t->daddr + 12 : t->daddr, d, sizeof(d));
	cJSON_AddStringToObject(o, "saddr", s);
	cJSON_AddNumberToObject(o, "sport", t->sport);
	cJSON_AddStringToObject(o, "daddr", d);
	cJSON_AddNumberToObject(o, "dport", t->dport);
}

/* Payload text, credentials redacted; only with capture_payloads. */
static void add_payload(cJSON *o, const char *data, size_t len)
{
	size_t cap = len + 64 * sizeof(XP_REDACTED), n;
	char *out = malloc(cap + 1);

	if (!out)
		return;
	n = xp_redact_http1(data, len, out, cap, NULL);
	out[n] = '\0';
	cJSON_AddItemToObject(o, "payload", cJSON_CreateString(out));
	free(out);
}

static int tls_data_json(const struct xp_tls_data *d, cJSON *o)
{
	if (d->hdr.size != offsetof(struct xp_tls_data, data) + d->len || d->len > XP_TLS_CHUNK) {
		cJSON_AddBoolToObject(o, "malformed", 1);
		return 0;
	}
	add_hex(o, "ssl", d->ssl);
	cJSON_AddNumberToObject(o, "sock_id", (double)d->sock_id);
	cJSON_AddNumberToObject(o, "fd", d->fd);
	cJSON_AddStringToObject(o, "dir", d->dir == XP_TLS_READ ? "read" : "write");
	cJSON_AddNumberToObject(o, "pos", (double)d->pos);
	cJSON_AddNumberToObject(o, "call_ns", (double)d->call_ns);
	cJSON_AddNumberToObject(o, "call_len", d->call_len);
	cJSON_AddNumberToObject(o, "offset", d->offset);
	cJSON_AddNumberToObject(o, "len", d->len);
	cJSON_AddBoolToObject(o, "truncated", d->flags & XP_TLS_TRUNC);
	cJSON_AddBoolToObject(o, "copy_failed", d->flags & XP_TLS_COPY_FAIL);
	cJSON_AddBoolToObject(o, "new_conn", d->flags & XP_TLS_NEW_CONN);
	if (keep_payloads)
		add_payload(o, d->data, d->len);
	return 0;
}

static int sock_json(const struct xp_hdr *rec, cJSON *o)
{
	const struct xp_sock_conn *k = (const void *)rec;
	const struct xp_sock_data *d = (const void *)rec;
	const struct xp_sock_sni *s = (const void *)rec;
	char name[XP_SNI_MAX];
	enum xp_sni_result r;

	switch (rec->type) {
	case XP_EV_SOCK_DATA:
		cJSON_AddNumberToObject(o, "sock_id", (double)d->sock_id);
		cJSON_AddNumberToObject(o, "fd", d->fd);
		add_tuple(o, &d->tuple);
		cJSON_AddStringToObject(o, "dir", d->dir == XP_SOCK_SEND ? "send" : "recv");
		cJSON_AddNumberToObject(o, "len", d->len);
		cJSON_AddNumberToObject(o, "call_ns", (double)d->call_ns);
		if (d->ssl)
			add_hex(o, "ssl", d->ssl);
		return 0;
	case XP_EV_SOCK_SNI:
		r = xp_sni_parse((const uint8_t *)s->data,
				 rec->size - offsetof(struct xp_sock_sni, data), name);
		cJSON_AddNumberToObject(o, "sock_id", (double)s->sock_id);
		add_tuple(o, &s->tuple);
		cJSON_AddStringToObject(o, "sni_result", xp_sni_result_str(r));
		if (r == XP_SNI_OK)
			cJSON_AddStringToObject(o, "sni", name);
		return 0;
	default:
		cJSON_AddNumberToObject(o, "sock_id", (double)k->sock_id);
		cJSON_AddNumberToObject(o, "fd", k->fd);
		add_tuple(o, &k->tuple);
		cJSON_AddNumberToObject(o, "err", k->err);
		if (rec->type == XP_EV_SOCK_CLOSE) {
			cJSON_AddNumberToObject(o, "bytes_sent", (double)k->bytes[XP_SOCK_SEND]);
			cJSON_AddNumberToObject(o, "bytes_received", (double)k->bytes[XP_SOCK_RECV]);
		}
		return 0;
	}
}

static int tls_to_json(const struct xp_hdr *rec, cJSON *o)
{
	const struct xp_tls_free *f = (const void *)rec;

	if (!tls_min_size(rec->type))
		return -ENOENT;
	if (rec->type == XP_EV_TLS_DATA)
		return tls_data_json((const void *)rec, o);
	if (rec->type != XP_EV_TLS_FREE)
		return sock_json(rec, o);
	add_hex(o, "ssl", f->ssl);
	cJSON_AddNumberToObject(o, "sock_id", (double)f->sock_id);
	cJSON_AddNumberToObject(o, "bytes_written", (double)f->bytes[XP_TLS_WRITE]);
	cJSON_AddNumberToObject(o, "bytes_read", (double)f->bytes[XP_TLS_READ]);
	return 0;
}

static void tls_stop(void *state)
{
	xp_tls_probes_close(state);
}

const struct xpc_module xpc_mod_tls = {
	.name = "tls",
	.start = tls_start,
	.on_process = tls_on_process,
	.to_json = tls_to_json,
	.min_size = tls_min_size,
	.stop = tls_stop,
};
