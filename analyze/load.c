// SPDX-License-Identifier: MIT
/*
 * load.c - read turn files: each is read by the core (core/read.h: validated,
 * typed) and built into a struct xa_trace; the turn is freed before the next
 * one is read.
 * A session directory is scanned once for the range of turn indexes and the
 * digit widths of their names (turn_NNN.json), then walked in index order by
 * name, so that no list of files grows with the session.
 */
#include "analyze/model.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/read.h"

struct err_ctx {
	FILE *out;
	char *first;
	size_t flen;
};

static void on_error(const struct sc_verror *e, void *arg)
{
	struct err_ctx *c = arg;
	char line[768];

	sc_verror_format(e, line, sizeof(line));
	if (c->out)
		fprintf(c->out, "%s\n", line);
	if (c->first && !c->first[0])
		snprintf(c->first, c->flen, "%s", line);
}

int xa_load_turn(const char *path, struct xa_trace *tr, FILE *err, char *first, size_t flen)
{
	struct err_ctx c = { err, first, flen };
	struct tt_turn *t;
	int rc;

	if (first && flen)
		first[0] = '\0';
	t = tt_turn_load(path, on_error, &c, NULL);
	if (!t) {
		memset(tr, 0, sizeof(*tr)); /* freeing it is then harmless */
		return XA_EINVALID;
	}
	rc = xa_trace_from_turn(t, path, tr);
	if (rc) { /* a refusal is reported like an error */
		struct sc_verror e = { .file = path };

		snprintf(e.msg, sizeof(e.msg),
			 "turn data the analyzer cannot use (or out of memory)");
		on_error(&e, &c);
		xa_trace_free(tr);
		return XA_EINVALID;
	}
	return XA_OK;
}

/* "turn_<digits>.json" -> index and digit count; -1 for other names. */
static int parse_name(const char *name, int64_t *idx, int *width)
{
	const char *p = name + 5;
	char *end;

	if (strncmp(name, "turn_", 5) || *p < '0' || *p > '9')
		return -1;
	errno = 0;
	*idx = strtoll(p, &end, 10);
	*width = (int)(end - p);
	return errno || strcmp(end, ".json") || *width > 31 ? -1 : 0;
}

int xa_scan_dir(const char *dir, struct xa_scan *sc)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	memset(sc, 0, sizeof(*sc));
	if (!d)
		return -1;
	snprintf(sc->dir, sizeof(sc->dir), "%s", dir);
	sc->lo = INT64_MAX;
	while ((de = readdir(d))) {
		int64_t idx;
		int w;

		if (parse_name(de->d_name, &idx, &w))
			continue;
		sc->nfiles++;
		sc->widths |= 1u << w;
		sc->lo = idx < sc->lo ? idx : sc->lo;
		sc->hi = idx > sc->hi ? idx : sc->hi;
	}
	closedir(d);
	return 0;
}

int xa_scan_path(const struct xa_scan *sc, int64_t idx, char *path, size_t len)
{
	struct stat st;

	for (int w = 1; w < 32; w++) {
		if (!(sc->widths & (1u << w)))
			continue;
		snprintf(path, len, "%s/turn_%0*lld.json", sc->dir, w, (long long)idx);
		/* lstat: a dangling link or a loop is found, then refused by the reader, never skipped unseen */
		if (!lstat(path, &st))
			return 0;
	}
	return -1;
}
