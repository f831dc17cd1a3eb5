// SPDX-License-Identifier: MIT
/*
 * ledger_fuzz.c - libFuzzer target for the state file of `xperf fleet serve`
 * (ledger.c): any bytes as a ledger file are loaded (refused with a reason, or
 * taken), then exposed into an aggregate, saved again and reloaded, which must
 * give the same entries. Crashes, sanitizer reports and leaks fail it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fleet/fleet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64], again[72];
	struct fleet_ledger l, m;
	struct fleet_agg a;
	char why[128];
	FILE *f;

	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/xperf-ledger-fuzz-%d.json", (int)getpid());
		snprintf(again, sizeof(again), "%s.again", path);
	}
	if (!(f = fopen(path, "w")))
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	if (!fleet_ledger_load(&l, path, why, sizeof(why))) {
		if (fleet_agg_init(&a, "/") || fleet_ledger_expose(&l, &a))
			abort();
		fleet_agg_free(&a);
		if (!fleet_ledger_save(&l, again)) {
			if (fleet_ledger_load(&m, again, why, sizeof(why)) ||
			    m.nsessions != l.nsessions || m.nretired != l.nretired)
				abort();
			fleet_ledger_free(&m);
			unlink(again);
		}
		fleet_ledger_free(&l);
	}
	unlink(path);
	return 0;
}
