// SPDX-License-Identifier: MIT
/*
 * exporter.c - the fleet's Prometheus figures over a trace directory, one
 * scan at a time, kept monotonic by the ledger (ledger.c) and saved after
 * every scan. `xperf fleet serve` serves them; `xperf-bpf daemon` serves
 * them next to its own health (cli/daemon_exporters.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleet/fleet.h"
#include "lib/clock_anchor.h"
#include "lib/plural.h"

struct fleet_exporter {
	char dir[FLEET_PATH];
	char *ledger_path;
	const char *who;                /* log prefix */
	const struct xa_prices *prices; /* NULL: the shipped table */
	struct fleet_ledger ledger;
};

/* The ledger of an earlier run, when there is one. */
static void load_ledger(struct fleet_exporter *fe)
{
	char why[128];
	int rc = fleet_ledger_load(&fe->ledger, fe->ledger_path, why, sizeof(why));

	if (rc < 0)
		fprintf(stderr, "%s: %s: %s: counters start from the files\n", fe->who,
			fe->ledger_path, why);
	else if (!rc)
		fprintf(stderr, "%s: counters continue from %s (%zu sessions)\n", fe->who,
			fe->ledger_path, fe->ledger.nsessions);
}

struct fleet_exporter *fleet_exporter_new(const char *dir, const char *state,
					  const struct xa_prices *prices, const char *who)
{
	struct fleet_exporter *fe = calloc(1, sizeof(*fe));

	if (!fe || !(fe->ledger_path = strdup(state))) {
		free(fe);
		return NULL;
	}
	snprintf(fe->dir, sizeof(fe->dir), "%s", dir);
	fe->who = who;
	fe->prices = prices;
	load_ledger(fe);
	return fe;
}

/*
 * The counters of a scan made monotonic and saved. A scan that could not
 * read the directory retires nothing (its sessions may come back): it
 * exposes the ledger.
 */
static void keep_counting(struct fleet_exporter *fe, struct fleet_agg *a)
{
	int rc = a->scan_failed ? 0 : fleet_ledger_apply(&fe->ledger, a);

	if (rc || fleet_ledger_expose(&fe->ledger, a)) {
		fprintf(stderr, "%s: out of memory keeping the counters\n", fe->who);
		return;
	}
	rc = fleet_ledger_save(&fe->ledger, fe->ledger_path);
	if (rc)
		fprintf(stderr, "%s: %s: %s (counters restart from the files if the exporter "
				"restarts)\n", fe->who, fe->ledger_path, strerror(-rc));
}

int fleet_exporter_write(struct fleet_exporter *fe, FILE *out, int log)
{
	double t0 = xp_now_s();
	struct fleet_agg a;
	int rc;

	if (fleet_agg_init(&a, fe->dir)) {
		fleet_agg_free(&a);
		fprintf(stderr, "%s: out of memory\n", fe->who);
		return -1;
	}
	a.keep_sessions = 1;
	a.prices = fe->prices;
	rc = fleet_collect(fe->dir, &a, NULL);
	a.scan_failed = rc != 0;
	keep_counting(fe, &a);
	a.scan_seconds = xp_now_s() - t0;
	a.scan_time = xp_now_ns(CLOCK_REALTIME) / 1e9;
	if (log)
		fprintf(stderr, "%s: %s: %s%zu node%s, %u session%s, %u turn%s, "
			"%u invalid file%s, %.3f s\n", fe->who, fe->dir,
			rc ? "scan incomplete (unreadable), " : "", a.nnodes, xp_s(a.nnodes),
			a.sessions, xp_s(a.sessions), a.turns, xp_s(a.turns), a.invalid_files,
			xp_s(a.invalid_files), a.scan_seconds);
	rc = fleet_prom_write(&a, out);
	fleet_agg_free(&a);
	return rc;
}

void fleet_exporter_free(struct fleet_exporter *fe)
{
	if (!fe)
		return;
	fleet_ledger_free(&fe->ledger);
	free(fe->ledger_path);
	free(fe);
}
