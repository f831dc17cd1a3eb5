// SPDX-License-Identifier: MIT
/*
 * tls_json.c - TLS and socket records -> JSON (tls_json.h). Every size is
 * checked against the record's own length fields before a byte is read;
 * payload text only on request, credentials redacted (redact.h; HTTP/2
 * header blocks zeroed, h2_scrub.h); the
 * ClientHello prefix is reduced to its server name and never output.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_int.h"
#include "lib/utf8.h"
#include "userspace/h2_scrub.h"
#include "userspace/redact.h"
#include "userspace/sni.h"
#include "userspace/tls_json.h"

const __u32 xpc_tls_record_min_size[XP_EV_TYPE_MAX] = {
	[XP_EV_TLS_DATA] = offsetof(struct xk_tls_data, data),
	[XP_EV_TLS_FREE] = sizeof(struct xk_tls_free),
	[XP_EV_SOCK_CONNECT] = sizeof(struct xk_sock_conn),
	[XP_EV_SOCK_ACCEPT] = sizeof(struct xk_sock_conn),
	[XP_EV_SOCK_CLOSE] = sizeof(struct xk_sock_conn),
	[XP_EV_SOCK_DATA] = sizeof(struct xk_sock_data),
	[XP_EV_SOCK_SNI] = offsetof(struct xk_sock_sni, data),
	[XP_EV_SOCK_DISCOVER] = sizeof(struct xk_sock_discover),
	[XP_EV_MAP_EXEC] = sizeof(struct xk_map_exec),
};

static void add_hex(cJSON *o, const char *key, __u64 v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	cJSON_AddStringToObject(o, key, buf);
}

static void add_tuple(cJSON *o, const struct xk_sock_tuple *t)
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

static char *base64(const unsigned char *s, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc((n + 2) / 3 * 4 + 1), *p = out;

	for (size_t i = 0; out && i < n; i += 3) {
		unsigned int v = s[i] << 16 | (i + 1 < n ? s[i + 1] << 8 : 0) | (i + 2 < n ? s[i + 2] : 0);

		*p++ = tab[v >> 18 & 63];
		*p++ = tab[v >> 12 & 63];
		*p++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
		*p++ = i + 2 < n ? tab[v & 63] : '=';
	}
	if (out)
		*p = '\0';
	return out;
}

/* HTTP/2 connections met so far (their frames are followed across records). */
static struct xpc_h2_scrub *h2;

/* Freed at exit: the scrubber lives as long as the process that prints records. */
__attribute__((destructor)) static void h2_free(void)
{
	xpc_h2_scrub_free(h2);
}

/*
 * An HTTP/2 record's bytes into out with its header blocks zeroed
 * (h2_scrub.h); the number of bytes, or -1 when it is not HTTP/2 (or
 * memory ran out) and -2 when it must be withheld.
 */
static long h2_payload(const struct xk_tls_data *d, char *out, cJSON *o)
{
	size_t zeroed;
	enum xpc_h2_verdict v;

	if (!h2 && !(h2 = xpc_h2_scrub_new()))
		return -1;
	memcpy(out, d->data, d->len);
	v = xpc_h2_scrub(h2, d->hdr.tgid, d->ssl, d->dir == XP_TLS_READ, d->pos,
			(unsigned char *)out, d->len, &zeroed);
	if (v == XPC_H2_WITHHELD)
		cJSON_AddStringToObject(o, "payload_withheld", "HTTP/2 frames not placeable");
	else if (v == XPC_H2_SCRUBBED)
		cJSON_AddNumberToObject(o, "h2_header_bytes_zeroed", (double)zeroed);
	return v == XPC_H2_PLAIN ? -1 : v == XPC_H2_WITHHELD ? -2 : (long)d->len;
}

/*
 * The payload, credentials redacted: "payload" when it is valid UTF-8
 * (HTTP headers, JSON), else "payload_base64" (binary, HTTP/2 frames with
 * their HPACK header blocks zeroed, compressed bodies), so the JSON stays
 * valid and no byte but a credential's is lost.
 */
static void add_payload(cJSON *o, const struct xk_tls_data *d)
{
	size_t cap = 2 * d->len + sizeof(XPC_REDACTED), n; /* a value can grow to [redacted] */
	char *out = malloc(cap + 1), *b64;
	long h2_len = out ? h2_payload(d, out, o) : -1;

	if (h2_len == -2 || !out) {
		free(out);
		return;
	}
	n = h2_len >= 0 ? (size_t)h2_len : xpc_redact_http1(d->data, d->len, out, cap, NULL);
	out[n] = '\0';
	/* UTF-8 (lib/utf8.h) with no NUL before the end: a JSON string as is. */
	if (strlen(out) == n && xp_utf8_valid(out)) {
		cJSON_AddStringToObject(o, "payload", out);
	} else {
		b64 = base64((const unsigned char *)out, n);
		if (b64)
			cJSON_AddStringToObject(o, "payload_base64", b64);
		free(b64);
	}
	free(out);
}

static int tls_data_json(const struct xk_tls_data *d, cJSON *o, bool payloads)
{
	if (d->hdr.size != offsetof(struct xk_tls_data, data) + d->len || d->len > XP_TLS_CHUNK) {
		cJSON_AddBoolToObject(o, "malformed", 1);
		return 0;
	}
	add_hex(o, "ssl", d->ssl);
	xp_json_add_u64(o, "sock_id", d->sock_id);
	cJSON_AddNumberToObject(o, "fd", d->fd);
	cJSON_AddStringToObject(o, "dir", d->dir == XP_TLS_READ ? "read" : "write");
	xp_json_add_u64(o, "pos", d->pos);
	xp_json_add_u64(o, "call_ns", d->call_ns);
	cJSON_AddNumberToObject(o, "call_len", d->call_len);
	cJSON_AddNumberToObject(o, "offset", d->offset);
	cJSON_AddNumberToObject(o, "len", d->len);
	cJSON_AddBoolToObject(o, "truncated", d->flags & XP_TLS_TRUNC);
	cJSON_AddBoolToObject(o, "copy_failed", d->flags & XP_TLS_COPY_FAIL);
	cJSON_AddBoolToObject(o, "new_conn", d->flags & XP_TLS_NEW_CONN);
	if (payloads)
		add_payload(o, d);
	return 0;
}

/* What a network rule matched: the kind and the name (the SNI or the path, never data). */
static int discover_json(const struct xk_sock_discover *d, cJSON *o)
{
	char name[XP_DISCOVER_NAME];

	xp_json_add_u64(o, "sock_id", d->sock_id);
	add_tuple(o, &d->tuple);
	cJSON_AddStringToObject(o, "rule", d->kind == XP_DISCOVER_HOST ? "host" :
					   d->kind == XP_DISCOVER_PATH ? "path" : "unknown");
	snprintf(name, sizeof(name), "%.*s", (int)sizeof(d->name), d->name);
	cJSON_AddStringToObject(o, "name", name);
	return 0;
}

static int sock_json(const struct xk_hdr *rec, cJSON *o)
{
	const struct xk_sock_conn *k = (const void *)rec;
	const struct xk_sock_data *d = (const void *)rec;
	const struct xk_sock_sni *s = (const void *)rec;
	char name[XPC_SNI_MAX];
	enum xpc_sni_result r;

	switch (rec->type) {
	case XP_EV_SOCK_DATA:
		xp_json_add_u64(o, "sock_id", d->sock_id);
		cJSON_AddNumberToObject(o, "fd", d->fd);
		add_tuple(o, &d->tuple);
		cJSON_AddStringToObject(o, "dir", d->dir == XP_SOCK_SEND ? "send" : "recv");
		cJSON_AddNumberToObject(o, "len", d->len);
		xp_json_add_u64(o, "call_ns", d->call_ns);
		if (d->ssl)
			add_hex(o, "ssl", d->ssl);
		return 0;
	case XP_EV_SOCK_SNI:
		r = xpc_sni_parse((const uint8_t *)s->data,
				 rec->size - offsetof(struct xk_sock_sni, data), name);
		xp_json_add_u64(o, "sock_id", s->sock_id);
		add_tuple(o, &s->tuple);
		cJSON_AddStringToObject(o, "sni_result", xpc_sni_result_str(r));
		if (r == XPC_SNI_OK)
			cJSON_AddStringToObject(o, "sni", name);
		return 0;
	default:
		xp_json_add_u64(o, "sock_id", k->sock_id);
		cJSON_AddNumberToObject(o, "fd", k->fd);
		add_tuple(o, &k->tuple);
		cJSON_AddNumberToObject(o, "err", k->err);
		if (rec->type == XP_EV_SOCK_CONNECT)
			xp_json_add_u64(o, "begin_ns", k->begin_ns);
		if (rec->type == XP_EV_SOCK_CLOSE) {
			xp_json_add_u64(o, "bytes_sent", k->bytes[XP_SOCK_SEND]);
			xp_json_add_u64(o, "bytes_received", k->bytes[XP_SOCK_RECV]);
		}
		return 0;
	}
}

static int map_exec_json(const struct xk_map_exec *m, cJSON *o)
{
	char dev[32];

	snprintf(dev, sizeof(dev), "%02x:%02x", m->dev_major, m->dev_minor);
	add_hex(o, "addr", m->addr);
	cJSON_AddStringToObject(o, "dev", dev);
	cJSON_AddNumberToObject(o, "ino", (double)m->ino);
	return 0;
}

int xpc_tls_record_json(const struct xk_hdr *rec, cJSON *o, bool payloads)
{
	const struct xk_tls_free *f = (const void *)rec;
	__u32 min = rec->type < XP_EV_TYPE_MAX ? xpc_tls_record_min_size[rec->type] : 0;

	if (!min)
		return -ENOENT;
	if (rec->size < min) {
		cJSON_AddBoolToObject(o, "malformed", 1);
		return 0;
	}
	if (rec->type == XP_EV_TLS_DATA)
		return tls_data_json((const void *)rec, o, payloads);
	if (rec->type == XP_EV_MAP_EXEC)
		return map_exec_json((const void *)rec, o);
	if (rec->type == XP_EV_SOCK_DISCOVER)
		return discover_json((const void *)rec, o);
	if (rec->type != XP_EV_TLS_FREE)
		return sock_json(rec, o);
	if (h2)
		xpc_h2_scrub_end(h2, rec->tgid, f->ssl);
	add_hex(o, "ssl", f->ssl);
	xp_json_add_u64(o, "sock_id", f->sock_id);
	xp_json_add_u64(o, "bytes_written", f->bytes[XP_TLS_WRITE]);
	xp_json_add_u64(o, "bytes_read", f->bytes[XP_TLS_READ]);
	return 0;
}

