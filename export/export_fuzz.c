// SPDX-License-Identifier: MIT
/*
 * export_fuzz.c - libFuzzer target for `xperf export`: each input is written
 * to a file and exported in both formats, as the CLI does (validated first,
 * so what reaches the writers is any turn the schema accepts: odd nesting,
 * overlaps, marks, GPU records, long names). Crashes, sanitizer reports and
 * leaks fail it; the output goes to /dev/null.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "export/export.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	static char path[64];
	char *paths[] = { path, path };
	FILE *f;

	if (!null) {
		null = fopen("/dev/null", "w");
		snprintf(path, sizeof(path), "/tmp/xperf-export-fuzz-%d.json", (int)getpid());
	}
	if (!(f = fopen(path, "w")))
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	for (int fmt = XE_CHROME; fmt <= XE_OTLP; fmt++) {
		struct xe_options o = { (enum xe_format)fmt, 0, 0 };

		xe_export(paths, 1, &o, null, null);
		xe_export(paths, 2, &o, null, null); /* the same turn twice: refused */
	}
	unlink(path);
	return 0;
}
