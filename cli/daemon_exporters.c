// SPDX-License-Identifier: MIT
/*
 * daemon_exporters.c - the metrics `xperf-bpf daemon` serves next to its own
 * health (userspace/daemon/metrics.h), one line each: the fleet's figures
 * over the node's sessions, the same as `xperf fleet serve` has them.
 */
#include "fleet/fleet.h"
#include "userspace/daemon/metrics.h"

static void *fleet_open(const char *node_dir, const char *state_path)
{
	struct fleet_exporter *fe = fleet_exporter_new(node_dir, state_path, NULL,
						       "xperf-bpf daemon: fleet metrics");

	if (!fe)
		fprintf(stderr, "xperf-bpf daemon: fleet metrics: out of memory\n");
	return fe;
}

static int fleet_write(void *state, FILE *out, int log)
{
	return fleet_exporter_write(state, out, log);
}

static void fleet_close(void *state)
{
	fleet_exporter_free(state);
}

static const struct xpd_exporter fleet = {
	.name = "fleet",
	.open = fleet_open,
	.write = fleet_write,
	.close = fleet_close,
};

const struct xpd_exporter *const xpd_exporters[] = {
	&fleet,
};

const unsigned int xpd_nexporters = sizeof(xpd_exporters) / sizeof(xpd_exporters[0]);
