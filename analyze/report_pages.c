// SPDX-License-Identifier: MIT
/*
 * report_pages.c - reports written to a file. A session in HTML gets a page
 * per drawn turn next to it (analyze/README.md, "Turn pages"): the turn
 * report as `xperf analyze turn` makes it, named after the session report,
 * each bar of the session's time axis linking to it. Every file goes through
 * lib/atomic_file.h (atomic, 0600, only over a regular file).
 */
#include "analyze/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/atomic_file.h"

static int write_view(const struct xa_view *v, const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int rc;

	if (!mem)
		return -ENOMEM;
	rc = xa_render_view(v, mem);
	if (fclose(mem) || rc)
		rc = -ENOMEM;
	else
		rc = xp_write_file_atomic(path, buf, len);
	free(buf);
	return rc;
}

void xa_html_page_name(const char *report, int64_t idx, char *buf, size_t len)
{
	size_t n = strlen(report);

	if (n > 5 && !strcmp(report + n - 5, ".html"))
		n -= 5;
	snprintf(buf, len, "%.*s.turn_%03lld.html", (int)n, report, (long long)idx);
}

/*
 * The page of row r, analysed again from its file as a turn of its own; 0 also
 * when the file is gone or no longer valid (paged stays 0: its bar links to its row).
 */
static int turn_page(const struct xa_scan *sc, const struct xa_row *r,
		     const struct xa_options *o, const char *path, size_t dirlen,
		     unsigned char *paged)
{
	const char *report = path + dirlen;
	char src[1024], name[512], page[4096 + 512];
	struct xa_turn *t = NULL;
	int rc;

	if (xa_scan_path(sc, r->turn_index, src, sizeof(src)) ||
	    xa_analyze_turn_file(src, o, &t, NULL) != XA_OK)
		return 0;
	xa_html_page_name(report, r->turn_index, name, sizeof(name));
	snprintf(page, sizeof(page), "%.*s%s", (int)dirlen, path, name);
	const struct xa_view v = { t, NULL, o, report, NULL };

	rc = write_view(&v, page);
	xa_turn_free(t);
	*paged = !rc;
	return rc;
}

static int session_html(const struct xa_session *s, const struct xa_options *o, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash + 1 - path) : 0;
	size_t n = xa_html_bars(s);
	unsigned char paged[XA_HTML_BARS] = { 0 };
	struct xa_scan sc;
	struct xa_row r;
	int rc = 0;

	if (strlen(path + dirlen) >= 256)
		return -ENAMETOOLONG;
	if (!xa_scan_dir(s->dir, &sc))
		for (size_t k = 0; k < n && !rc && !xa_session_row(s, xa_html_drawn(s, k, n), &r);
		     k++)
			rc = turn_page(&sc, &r, o, path, dirlen, &paged[k]);
	if (rc)
		return rc;
	const struct xa_view v = { s->total, s, o, path + dirlen, paged };

	return write_view(&v, path);
}

int xa_render_to_path(const struct xa_turn *t, const struct xa_session *s,
		      const struct xa_options *o, const char *path)
{
	const struct xa_view v = { t ? t : s->total, t ? NULL : s, o, NULL, NULL };

	if (!t && o->format == XA_FMT_HTML)
		return session_html(s, o, path);
	return write_view(&v, path);
}
