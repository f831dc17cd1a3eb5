// SPDX-License-Identifier: MIT
/* daemon_metrics.c - the daemon's /metrics endpoint (daemon_metrics.h). */
#include "userspace/daemon_metrics.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "lib/listen_addr.h"

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define MAX_CONNECTIONS 16
#define CONNECTION_TIMEOUT_S 10

struct xpd_metrics {
	struct MHD_Daemon *d;
	pthread_mutex_t mu;
	char *body;
	size_t len;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int code, const char *body,
			     size_t len, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body,
								 MHD_RESPMEM_MUST_COPY);
	enum MHD_Result rc;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	rc = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_len, void **req)
{
	struct xpd_metrics *m = cls;
	enum MHD_Result rc;

	(void)version, (void)upload, (void)upload_len, (void)req;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n", 19,
			     "text/plain");
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "not found: metrics at /metrics\n", 31,
			     "text/plain");
	pthread_mutex_lock(&m->mu);
	rc = reply(c, MHD_HTTP_OK, m->body ? m->body : "", m->body ? m->len : 0, CONTENT_TYPE);
	pthread_mutex_unlock(&m->mu);
	return rc;
}

struct xpd_metrics *xpd_metrics_start(const char *listen)
{
	struct addrinfo *ai = xp_listen_addr(listen);
	struct xpd_metrics *m = ai ? calloc(1, sizeof(*m)) : NULL;
	const union MHD_DaemonInfo *info;

	if (!m) {
		fprintf(stderr, "xperf-bpf daemon: invalid --metrics-listen '%s' (want HOST:PORT)\n",
			listen);
		if (ai)
			freeaddrinfo(ai);
		return NULL;
	}
	pthread_mutex_init(&m->mu, NULL);
	m->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
				(ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL,
				on_request, m, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)MAX_CONNECTIONS,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)CONNECTION_TIMEOUT_S,
				MHD_OPTION_END);
	freeaddrinfo(ai);
	if (!m->d) {
		fprintf(stderr, "xperf-bpf daemon: cannot listen on %s\n", listen);
		free(m);
		return NULL;
	}
	info = MHD_get_daemon_info(m->d, MHD_DAEMON_INFO_BIND_PORT);
	fprintf(stderr, "xperf-bpf daemon: metrics on port %u (/metrics)\n", info ? info->port : 0);
	return m;
}

void xpd_metrics_publish(struct xpd_metrics *m, const char *text, size_t len)
{
	char *copy = malloc(len + 1);

	if (!copy)
		return;
	memcpy(copy, text, len);
	copy[len] = '\0';
	pthread_mutex_lock(&m->mu);
	free(m->body);
	m->body = copy;
	m->len = len;
	pthread_mutex_unlock(&m->mu);
}

void xpd_metrics_stop(struct xpd_metrics *m)
{
	if (!m)
		return;
	MHD_stop_daemon(m->d);
	free(m->body);
	free(m);
}
