// SPDX-License-Identifier: MIT
/* daemon_discover.c - the daemon's network discovery (daemon_discover.h). */
#include "userspace/daemon_discover.h"

#include <errno.h>

/* The counters, with their metric names: a table, one row per enum xp_discover_stat. */
static const struct {
	const char *name, *help;
} stats[XP_DSTAT_MAX] = {
	[XP_DSTAT_CONNS] = { "net_connections_examined_total",
			     "First sends of untraced processes' TCP connections examined." },
	[XP_DSTAT_HELLOS] = { "net_client_hellos_total", "Of those, TLS ClientHellos." },
	[XP_DSTAT_NO_SNI] = { "net_client_hellos_unnamed_total",
			      "ClientHellos whose server name was absent, cut or too long." },
	[XP_DSTAT_REQUESTS] = { "net_http_requests_total", "Of those, plaintext HTTP requests." },
	[XP_DSTAT_MATCHED] = { "net_discovered_total",
			       "Processes traced for naming a rule's host or path." },
	[XP_DSTAT_UNREAD] = { "net_sends_unread_total",
			      "First sends whose bytes could not be read (not examined)." },
};

int xpd_discover_push(struct xpc *c, const struct xpd_rules *r)
{
	static const enum xpd_rule_kind kinds[] = { XPD_HOST, XPD_PATH };
	static const int kernel_kinds[] = { XP_DISCOVER_HOST, XP_DISCOVER_PATH };
	const char *names[XPD_RULES_MAX];

	for (unsigned int i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		unsigned int n = xpd_rules_net_names(r, kinds[i], names, XPD_RULES_MAX);

		if (xpc_discover_net(c, kernel_kinds[i], names, n)) {
			fprintf(stderr, "xperf-bpf daemon: %s\n", xpc_error(c));
			return -EIO;
		}
	}
	return 0;
}

void xpd_discover_metrics(struct xpc *c, FILE *f)
{
	uint64_t v[XP_DSTAT_MAX];

	if (xpc_discover_stats(c, v))
		return;
	for (int i = 0; i < XP_DSTAT_MAX; i++)
		fprintf(f, "# HELP xperf_daemon_%s %s\n# TYPE xperf_daemon_%s counter\n"
			   "xperf_daemon_%s %llu\n", stats[i].name, stats[i].help, stats[i].name,
			stats[i].name, (unsigned long long)v[i]);
}

void xpd_discover_report(struct xpc *c)
{
	uint64_t v[XP_DSTAT_MAX];

	if (xpc_discover_stats(c, v))
		return;
	fprintf(stderr, "xperf-bpf daemon: network discovery: %llu connections examined "
			"(%llu ClientHellos, %llu without a readable name; %llu HTTP requests; "
			"%llu unread), %llu processes traced\n",
		(unsigned long long)v[XP_DSTAT_CONNS], (unsigned long long)v[XP_DSTAT_HELLOS],
		(unsigned long long)v[XP_DSTAT_NO_SNI], (unsigned long long)v[XP_DSTAT_REQUESTS],
		(unsigned long long)v[XP_DSTAT_UNREAD], (unsigned long long)v[XP_DSTAT_MATCHED]);
}
