/* SPDX-License-Identifier: MIT */
/*
 * adapt.c - record decoding for the assembler. TLS connections are named by
 * their SSL* and sockets by their inode (sock_id), both unique within a
 * process while open; the SNI of a socket becomes its host.
 */
#include "assemble/adapt.h"

#include <stddef.h>
#include <string.h>

#include "bpf/proc.h"
#include "bpf/sched.h"
#include "bpf/sock.h"
#include "bpf/tls.h"
#include "userspace/exec_decode.h"
#include "userspace/sni.h"

static int proc_event(const struct xk_hdr *rec, struct xt_event *ev)
{
	if (rec->type == XP_EV_FORK) {
		const struct xk_fork *f = (const void *)rec;

		if (rec->size < sizeof(*f))
			return -1;
		ev->kind = XT_FORK;
		ev->child = f->child_tgid;
		ev->is_thread = !!(f->flags & XP_FORK_THREAD);
		return 1;
	}
	if (rec->type == XP_EV_EXEC) {
		const struct xk_exec *e = (const void *)rec;

		if (rec->size < XPC_EXEC_FIXED || xpc_exec_check(e, rec->size))
			return -1;
		ev->kind = XT_EXEC;
		ev->argv = e->data + e->filename_len;
		ev->argv_len = e->args_len;
		return ev->argv_len ? 1 : 0;
	}
	const struct xk_exit *x = (const void *)rec;

	if (rec->size < sizeof(*x))
		return -1;
	ev->kind = XT_EXIT;
	ev->wait_status = x->exit_code;
	ev->cpu_ns = x->cpu_ns;
	return 1;
}

static int sched_event(const struct xk_hdr *rec, struct xt_event *ev)
{
	const struct xk_sched *s = (const void *)rec;

	if (rec->size < sizeof(*s) || s->state >= XP_TS_MAX || s->prev_state >= XP_TS_MAX)
		return -1;
	ev->kind = XT_SCHED;
	ev->state = (enum xt_state)s->state; /* same numbering as enum xk_thread_state */
	ev->prev_state = (enum xt_state)s->prev_state;
	ev->prev_ns = s->prev_ns;
	return 1;
}

static int tls_event(const struct xk_hdr *rec, struct xt_event *ev)
{
	if (rec->type == XP_EV_TLS_FREE) {
		const struct xk_tls_free *f = (const void *)rec;

		if (rec->size < sizeof(*f))
			return -1;
		ev->kind = XT_TLS_CLOSE;
		ev->conn = f->ssl;
		return 1;
	}
	const struct xk_tls_data *d = (const void *)rec;
	size_t fixed = offsetof(struct xk_tls_data, data);

	if (rec->size < fixed || d->len > rec->size - fixed || d->dir > XP_TLS_READ)
		return -1;
	if (d->flags & XP_TLS_COPY_FAIL)
		return 0; /* nothing to parse; the next record's pos shows the gap */
	ev->kind = XT_TLS;
	ev->conn = d->ssl;
	ev->dir = d->dir == XP_TLS_READ ? XT_READ : XT_WRITE;
	ev->pos = d->pos;
	ev->call_ns = d->call_ns;
	ev->data = d->data;
	ev->len = d->len;
	if ((d->flags & XP_TLS_TRUNC) && d->call_len > d->offset + d->len)
		ev->lost = d->call_len - d->offset - d->len;
	return 1;
}

static int sock_event(const struct xk_hdr *rec, struct xt_event *ev, struct xt_adapt_buf *buf)
{
	if (rec->type == XP_EV_SOCK_DATA) {
		const struct xk_sock_data *d = (const void *)rec;

		if (rec->size < sizeof(*d))
			return -1;
		ev->kind = XT_SOCK;
		ev->conn = d->sock_id;
		ev->dir = d->dir == XP_SOCK_RECV ? XT_READ : XT_WRITE;
		ev->call_ns = d->call_ns;
		ev->len = d->len;
		ev->in_tls = d->ssl != 0;
		return 1;
	}
	if (rec->type == XP_EV_SOCK_SNI) {
		const struct xk_sock_sni *s = (const void *)rec;
		size_t fixed = offsetof(struct xk_sock_sni, data);

		if (rec->size < fixed)
			return -1;
		if (xpc_sni_parse((const uint8_t *)s->data, rec->size - fixed, buf->text) !=
		    XPC_SNI_OK)
			return 0;
		ev->kind = XT_SOCK_OPEN;
		ev->conn = s->sock_id;
		ev->host = buf->text;
		return 1;
	}
	const struct xk_sock_conn *c = (const void *)rec;

	if (rec->size < sizeof(*c))
		return -1;
	ev->kind = rec->type == XP_EV_SOCK_CLOSE ? XT_SOCK_CLOSE : XT_SOCK_OPEN;
	ev->conn = c->sock_id;
	if (rec->type == XP_EV_SOCK_CONNECT && c->begin_ns && c->begin_ns <= rec->ts_ns)
		ev->call_ns = c->begin_ns; /* when the connect began */
	return 1;
}

int xt_adapt(const struct xk_hdr *rec, struct xt_event *ev, struct xt_adapt_buf *buf)
{
	memset(ev, 0, sizeof(*ev));
	ev->ts_ns = rec->ts_ns;
	ev->tgid = rec->tgid;
	ev->tid = rec->tid;
	switch (rec->type) {
	case XP_EV_FORK:
	case XP_EV_EXEC:
	case XP_EV_EXIT:
		return proc_event(rec, ev);
	case XP_EV_SCHED:
		return sched_event(rec, ev);
	case XP_EV_TLS_DATA:
	case XP_EV_TLS_FREE:
		return tls_event(rec, ev);
	case XP_EV_SOCK_CONNECT:
	case XP_EV_SOCK_ACCEPT:
	case XP_EV_SOCK_DATA:
	case XP_EV_SOCK_CLOSE:
	case XP_EV_SOCK_SNI:
		return sock_event(rec, ev, buf);
	default:
		return 0;
	}
}
