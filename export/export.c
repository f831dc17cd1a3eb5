// SPDX-License-Identifier: MIT
/*
 * export.c - `xperf export` as a library call: pick the format, walk the
 * inputs into it, report a write failure.
 */
#include "export/export.h"

#include <stdlib.h>
#include <string.h>

#include "export/walk.h"
#include "lib/clock_anchor.h"

static const struct {
	const char *name;
	const struct xe_format_ops *ops;
	void *(*create)(void);
	void (*destroy)(void *st);
} formats[] = {
	[XE_CHROME] = { "chrome", &xe_chrome_ops, xe_chrome_new, xe_chrome_free },
	[XE_OTLP] = { "otlp", &xe_otlp_ops, xe_otlp_new, free },
};

int xe_parse_format(const char *s, enum xe_format *out)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(s, formats[i].name)) {
			*out = (enum xe_format)i;
			return 0;
		}
	return -1;
}

int64_t xe_clock_offset_now(void)
{
	struct xp_clock_anchor a;

	xp_clock_anchor_now(&a);
	return xp_clock_anchor_offset(&a);
}

int xe_export(char *const *paths, int npaths, const struct xe_options *o, FILE *out, FILE *err)
{
	struct xe_out w = { .f = out };
	void *st = formats[o->format].create();
	int rc;

	if (!st) {
		fprintf(err, "xperf export: out of memory\n");
		return XE_EFAIL;
	}
	rc = xe_walk(paths, npaths, o, formats[o->format].ops, st, &w, err);
	if (rc == XE_EFAIL)
		fprintf(err, "xperf export: out of memory or write error\n");
	formats[o->format].destroy(st);
	xp_jout_free(&w.j);
	return rc;
}
