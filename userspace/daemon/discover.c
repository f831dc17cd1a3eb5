// SPDX-License-Identifier: MIT
/* discover.c - the daemon's network discovery (discover.h). */
#include "userspace/daemon/discover.h"

#include <errno.h>
#include <stdio.h>

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
