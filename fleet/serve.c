// SPDX-License-Identifier: MIT
/*
 * serve.c - `xperf fleet serve`: a Prometheus metrics endpoint over a trace
 * directory. The main thread rescans the directory every interval and renders
 * the exposition text into a fresh buffer, swapped in under a mutex; the HTTP
 * thread (libmicrohttpd's internal polling thread) only copies the current
 * buffer, so a scrape never waits for a scan and never sees half of one.
 * SIGTERM and SIGINT are blocked in every thread and taken by sigtimedwait()
 * in the main loop: the server stops between two scans, cleanly.
 *
 * Routes: GET|HEAD /metrics (503 until the first scan ends), / (a pointer to
 * /metrics); 404 elsewhere, 405 for other methods. Connections are limited in
 * number and time so that slow clients cannot pin the exporter.
 */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>

#include "fleet/fleet.h"
#include "lib/listen_addr.h"

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define MAX_CONNECTIONS 32
#define CONNECTION_TIMEOUT_S 10

struct state {
	pthread_mutex_t mu;
	char *body; /* NULL until the first scan ends */
	size_t len;
	struct fleet_exporter *fe; /* scanner thread only */
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *body,
			     size_t len, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body,
								 MHD_RESPMEM_MUST_COPY);
	enum MHD_Result rc;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	rc = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_len, void **req)
{
	static const char index[] = "xperf fleet exporter: metrics at /metrics\n";
	struct state *st = cls;
	enum MHD_Result rc;

	(void)version;
	(void)upload;
	(void)upload_len;
	(void)req;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n", 19,
			     "text/plain");
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, index, sizeof(index) - 1, "text/plain");
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "not found\n", 10, "text/plain");
	pthread_mutex_lock(&st->mu);
	if (st->body)
		rc = reply(c, MHD_HTTP_OK, st->body, st->len, CONTENT_TYPE);
	else
		rc = reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "first scan in progress\n", 23,
			   "text/plain");
	pthread_mutex_unlock(&st->mu);
	return rc;
}

/* Scan, render, swap the buffer in. Logs one line per scan. */
static void rescan(struct state *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (mem && !fleet_exporter_write(st->fe, mem, 1) && !fclose(mem)) {
		pthread_mutex_lock(&st->mu);
		free(st->body);
		st->body = buf;
		st->len = len;
		pthread_mutex_unlock(&st->mu);
	} else {
		if (mem)
			fclose(mem);
		free(buf);
	}
}

/* Wait up to `s` seconds for SIGTERM/SIGINT; 1 when one came. */
static int wait_signal(const sigset_t *set, unsigned s)
{
	struct timespec ts = { .tv_sec = s };
	int sig;

	do
		sig = sigtimedwait(set, NULL, &ts);
	while (sig < 0 && errno == EINTR);
	return sig > 0;
}

int fleet_serve(const char *dir, const char *listen, unsigned interval, const char *state,
		const struct xa_prices *prices)
{
	struct state st = { .mu = PTHREAD_MUTEX_INITIALIZER };
	struct addrinfo *ai = xp_listen_addr(listen);
	const union MHD_DaemonInfo *info;
	struct MHD_Daemon *d;
	sigset_t set;

	if (!ai) {
		fprintf(stderr, "xperf fleet serve: invalid --listen '%s' (want HOST:PORT)\n",
			listen);
		return -2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* before MHD's thread exists: it inherits */
	signal(SIGPIPE, SIG_IGN);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
			     (ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL,
			     on_request, &st, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)MAX_CONNECTIONS,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT_S,
			     MHD_OPTION_END);
	freeaddrinfo(ai);
	if (!d) {
		fprintf(stderr, "xperf fleet serve: cannot listen on %s\n", listen);
		return -1;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	fprintf(stderr,
		"xperf fleet serve: listening on %.*s:%u (/metrics), scanning %s every %u s\n",
		(int)(strrchr(listen, ':') - listen), listen, info ? info->port : 0, dir, interval);
	st.fe = fleet_exporter_new(dir, state, prices, "xperf fleet serve");
	if (!st.fe) {
		MHD_stop_daemon(d);
		fprintf(stderr, "xperf fleet serve: out of memory\n");
		return -1;
	}
	do
		rescan(&st);
	while (!wait_signal(&set, interval));
	MHD_stop_daemon(d);
	free(st.body);
	fleet_exporter_free(st.fe);
	fprintf(stderr, "xperf fleet serve: stopped\n");
	return 0;
}
