// SPDX-License-Identifier: MIT
/*
 * metrics.c - the daemon's /metrics endpoint (metrics.h): its
 * health as Prometheus text, and the registered exporters rescanned on a
 * thread of their own.
 */
#include "userspace/daemon/metrics.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>

#include "lib/listen_addr.h"

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define MAX_CONNECTIONS 16
#define CONNECTION_TIMEOUT_S 10
#define STATE_FILE ".xperf-fleet-state.json"

/* A text swapped in whole. */
struct text {
	char *body;
	size_t len;
};

struct xpd_metrics {
	struct MHD_Daemon *d;
	pthread_mutex_t mu;		/* the texts, stop */
	pthread_cond_t wake;
	struct text health, exported;
	bool stop;
	pthread_t scanner;
	bool scanning;
	char *node_dir, *state_path;
	unsigned int interval_s;
	int quiet;
};

static void swap_in(struct xpd_metrics *m, struct text *t, char *body, size_t len)
{
	pthread_mutex_lock(&m->mu);
	free(t->body);
	t->body = body;
	t->len = len;
	pthread_mutex_unlock(&m->mu);
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int code, void *body, size_t len,
			     enum MHD_ResponseMemoryMode mode, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result rc;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	rc = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned int code, const char *s)
{
	return reply(c, code, (void *)s, strlen(s), MHD_RESPMEM_PERSISTENT, "text/plain");
}

/* The health, then the exporters' figures: one copy, made under the lock. */
static enum MHD_Result reply_metrics(struct MHD_Connection *c, struct xpd_metrics *m)
{
	char *body;
	size_t len;

	pthread_mutex_lock(&m->mu);
	len = m->health.len + m->exported.len;
	body = malloc(len + 1);
	if (body) {
		if (m->health.len)
			memcpy(body, m->health.body, m->health.len);
		if (m->exported.len)
			memcpy(body + m->health.len, m->exported.body, m->exported.len);
	}
	pthread_mutex_unlock(&m->mu);
	if (!body)
		return MHD_NO;
	return reply(c, MHD_HTTP_OK, body, len, MHD_RESPMEM_MUST_FREE, CONTENT_TYPE);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_len, void **req)
{
	(void)version, (void)upload, (void)upload_len, (void)req;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n");
	if (strcmp(url, "/metrics"))
		return reply_text(c, MHD_HTTP_NOT_FOUND, "not found: metrics at /metrics\n");
	return reply_metrics(c, cls);
}

/* Every exporter's text, in list order; the last good text stays on a failure. */
static void rescan(struct xpd_metrics *m, void **states)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int err = !f;

	for (unsigned int i = 0; f && i < xpd_nexporters; i++)
		if (states[i] && xpd_exporters[i]->write(states[i], f, !m->quiet))
			err = 1;
	if (f && fclose(f))
		err = 1;
	if (err)
		free(text);
	else
		swap_in(m, &m->exported, text, len);
}

/* Sleeps interval_s or until stopped; true when stopped. */
static bool wait_stop(struct xpd_metrics *m)
{
	struct timespec until;
	bool stop;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += m->interval_s;
	pthread_mutex_lock(&m->mu);
	while (!m->stop && pthread_cond_timedwait(&m->wake, &m->mu, &until) != ETIMEDOUT)
		;
	stop = m->stop;
	pthread_mutex_unlock(&m->mu);
	return stop;
}

static void *scanner(void *arg)
{
	struct xpd_metrics *m = arg;
	void *states[16] = { 0 };

	for (unsigned int i = 0; i < xpd_nexporters && i < 16; i++)
		states[i] = xpd_exporters[i]->open(m->node_dir, m->state_path);
	do
		rescan(m, states);
	while (!wait_stop(m));
	for (unsigned int i = 0; i < xpd_nexporters && i < 16; i++)
		if (states[i])
			xpd_exporters[i]->close(states[i]);
	return NULL;
}

static struct xpd_metrics *metrics_new(const struct xpd_metrics_opts *o)
{
	struct xpd_metrics *m = calloc(1, sizeof(*m));
	size_t n = strlen(o->node_dir) + sizeof("/" STATE_FILE);

	if (!m)
		return NULL;
	pthread_mutex_init(&m->mu, NULL);
	pthread_cond_init(&m->wake, NULL);
	m->interval_s = o->interval_s ? o->interval_s : 30;
	m->quiet = o->quiet;
	m->node_dir = strdup(o->node_dir);
	m->state_path = malloc(n);
	if (!m->node_dir || !m->state_path) {
		xpd_metrics_stop(m);
		return NULL;
	}
	snprintf(m->state_path, n, "%s/" STATE_FILE, o->node_dir);
	return m;
}

struct xpd_metrics *xpd_metrics_start(const struct xpd_metrics_opts *o)
{
	struct addrinfo *ai = xp_listen_addr(o->listen);
	struct xpd_metrics *m = ai ? metrics_new(o) : NULL;
	const union MHD_DaemonInfo *info;

	if (!m) {
		fprintf(stderr, "xperf-bpf daemon: invalid --metrics-listen '%s' (want HOST:PORT)\n",
			o->listen);
		if (ai)
			freeaddrinfo(ai);
		return NULL;
	}
	m->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
				(ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL,
				on_request, m, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)MAX_CONNECTIONS,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)CONNECTION_TIMEOUT_S,
				MHD_OPTION_END);
	freeaddrinfo(ai);
	if (!m->d) {
		fprintf(stderr, "xperf-bpf daemon: cannot listen on %s\n", o->listen);
		xpd_metrics_stop(m);
		return NULL;
	}
	info = MHD_get_daemon_info(m->d, MHD_DAEMON_INFO_BIND_PORT);
	fprintf(stderr, "xperf-bpf daemon: metrics on port %u (/metrics)\n", info ? info->port : 0);
	m->scanning = xpd_nexporters && !pthread_create(&m->scanner, NULL, scanner, m);
	return m;
}

static void metric(FILE *f, const char *name, const char *type, const char *help, uint64_t v)
{
	fprintf(f, "# HELP xperf_daemon_%s %s\n# TYPE xperf_daemon_%s %s\nxperf_daemon_%s %llu\n",
		name, help, name, type, name, (unsigned long long)v);
}

/* A counter by label: n values named by names[] (all of them, zeros too, when all). */
static void labelled(FILE *f, const char *name, const char *help, const char *label,
		     const char *(*label_of)(unsigned int), const uint64_t *v, unsigned int n,
		     bool all)
{
	fprintf(f, "# HELP xperf_daemon_%s %s\n# TYPE xperf_daemon_%s counter\n", name, help,
		name);
	for (unsigned int i = 0; i < n; i++)
		if (all || v[i])
			fprintf(f, "xperf_daemon_%s{%s=\"%s\"} %llu\n", name, label, label_of(i),
				(unsigned long long)v[i]);
}

static const char *tier_name(unsigned int i)
{
	return xpd_conn_tier_names[i];
}

static void agents_text(FILE *f, const struct xpd_health *h)
{
	const struct xpd_counters *n = h->agents;

	metric(f, "agents_traced_total", "counter", "Agents (process trees) traced.",
	       n->agents_traced);
	metric(f, "agents_active", "gauge", "Agents traced now.", n->agents_active);
	metric(f, "agents_max", "gauge", "Agents traced at once at most (--max-agents).",
	       h->max_agents);
	metric(f, "agents_refused_total", "counter", "Agents refused: --max-agents reached.",
	       n->agents_refused);
	metric(f, "agents_missed_total", "counter", "Agents gone before they could be traced.",
	       n->agents_missed);
	metric(f, "sessions_ended_total", "counter", "Sessions written and closed.",
	       n->sessions_ended);
	metric(f, "sessions_deleted_total", "counter", "Sessions deleted by retention.",
	       h->sessions_deleted);
	metric(f, "execs_seen_total", "counter", "Exec events of untraced processes matched.",
	       h->execs_seen);
	metric(f, "rules", "gauge", "Discovery rules in force.", h->rules);
	metric(f, "connections_open", "gauge", "Connections the agents' sessions hold state for.",
	       n->connections_open);
	metric(f, "connections_max", "gauge", "Connections held per agent and tier at "
	       "most (--max-connections).", h->max_connections);
	labelled(f, "connections_evicted_total", "Idle connections whose state was evicted "
		 "(--max-connections reached), by tier.", "tier", tier_name,
		 n->connections_evicted, XPD_CONN_TIERS, true);
	metric(f, "processes_max", "gauge", "Processes an agent's turn assembler keeps at most "
	       "(--max-processes).", h->max_processes);
	metric(f, "processes_evicted_total", "counter", "Exited processes the agents' turn "
	       "assemblers forgot at --max-processes.", n->processes_evicted);
	metric(f, "sched_marks_max", "gauge", "Scheduler transitions an agent's turn assembler "
	       "keeps per thread at most (--max-sched-marks).", h->max_sched_marks);
	metric(f, "sched_marks_evicted_total", "counter", "Scheduler transitions the agents' "
	       "turn assemblers forgot at --max-sched-marks.", n->sched_marks_evicted);
}

static const char *const outcome_names[XPD_OUTCOMES] = {
	[XPD_TRACED] = "traced", [XPD_IN_TREE] = "in_tree", [XPD_REFUSED] = "refused",
	[XPD_GONE] = "gone", [XPD_FAILED] = "failed",
};

/* The kernel's network discovery (bpf/discover_net.bpf.h), one counter each. */
static const struct {
	unsigned int stat;
	const char *name, *help;
} net_metrics[] = {
	{ XP_DSTAT_CONNS, "net_connections_examined_total",
	  "First sends of untraced processes' TCP connections examined in the kernel." },
	{ XP_DSTAT_HELLOS, "net_client_hellos_total", "Of those, TLS ClientHellos." },
	{ XP_DSTAT_NO_SNI, "net_client_hellos_unnamed_total", "ClientHellos without a readable "
	  "server name (none, cut, longer than 63 bytes)." },
	{ XP_DSTAT_REQUESTS, "net_http_requests_total", "HTTP/1.x request lines examined: a "
	  "plaintext connection's first send, an untraced process's SSL write." },
	{ XP_DSTAT_UNREAD, "net_unread_total", "First sends whose bytes could not be read." },
	{ XP_DSTAT_MATCHED, "net_traced_total", "Processes the kernel traced at a send (or an "
	  "SSL write) naming a host or path rule." },
};

/* Every (rule kind, outcome) series, zeros too: none appears or goes away later. */
static void discovery_text(FILE *f, const struct xpd_health *h)
{
	fprintf(f, "# HELP xperf_daemon_rule_matches_total Processes a discovery rule matched, by "
		"the rule's kind (exe, cmdline: at exec or the start-up scan; host, path: in the "
		"kernel, at a connection's first send) and what came of it.\n"
		"# TYPE xperf_daemon_rule_matches_total counter\n");
	for (unsigned int k = 0; k < XPD_RULE_KINDS; k++)
		for (unsigned int o = 0; o < XPD_OUTCOMES; o++)
			fprintf(f, "xperf_daemon_rule_matches_total{rule=\"%s\",outcome=\"%s\"} "
				"%llu\n", xpd_rule_kind_name(k), outcome_names[o],
				(unsigned long long)h->matches[k][o]);
	for (size_t i = 0; i < sizeof(net_metrics) / sizeof(net_metrics[0]); i++)
		metric(f, net_metrics[i].name, "counter", net_metrics[i].help,
		       h->net[net_metrics[i].stat]);
}

static void core_text(FILE *f, const struct xpd_health *h)
{
	const struct xpc_counts *k = &h->counts;

	labelled(f, "records_total", "Records read from the ring, by type.", "type", xpc_type_name,
		 k->records, XP_EV_TYPE_MAX, false);
	labelled(f, "records_lost_total", "Records lost in the kernel (ring full), by type.",
		 "type", xpc_type_name, k->drops, XP_EV_TYPE_MAX, false);
	metric(f, "records_malformed_total", "counter", "Records of a wrong size.", k->malformed);
	metric(f, "records_routed_total", "counter", "Records delivered to an agent's session.",
	       h->agents->records_routed);
	metric(f, "ring_size_bytes", "gauge", "Size of the ring buffer.", h->core.ring_size);
	metric(f, "ring_used_bytes", "gauge", "Bytes pending in the ring when the last read "
	       "began.", h->core.ring_used);
	metric(f, "ring_used_max_bytes", "gauge", "The most bytes pending in the ring when a "
	       "read began, since start.", h->core.ring_used_max);
	metric(f, "locate_failures_total", "counter", "Located TLS files the self-check "
	       "distrusted (their plaintext withheld, the socket tier goes on).",
	       h->core.located_failed);
	metric(f, "locate_records_withheld_total", "counter", "Plaintext records of distrusted "
	       "or unchecked located files never delivered.", h->core.located_withheld);
}

void xpd_metrics_health(struct xpd_metrics *m, const struct xpd_health *h)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	agents_text(f, h);
	discovery_text(f, h);
	core_text(f, h);
	if (fclose(f))
		free(text);
	else
		swap_in(m, &m->health, text, len);
}

void xpd_metrics_stop(struct xpd_metrics *m)
{
	if (!m)
		return;
	if (m->scanning) {
		pthread_mutex_lock(&m->mu);
		m->stop = true;
		pthread_cond_signal(&m->wake);
		pthread_mutex_unlock(&m->mu);
		pthread_join(m->scanner, NULL);
	}
	if (m->d)
		MHD_stop_daemon(m->d);
	free(m->health.body);
	free(m->exported.body);
	free(m->node_dir);
	free(m->state_path);
	pthread_cond_destroy(&m->wake);
	pthread_mutex_destroy(&m->mu);
	free(m);
}
