/* SPDX-License-Identifier: MIT */
/* run_report.c - end-of-run summary through the analyzer library (analyze.h). */
#include "cli/run_report.h"

#include <string.h>

#include "analyze/analyze.h"
#include "lib/atomic_file.h"
#include "lib/plural.h"

int cmd_run_html(const char *session_dir, const char *path, FILE *err)
{
	struct xa_options o;
	struct xa_session *as = NULL;
	int rc;

	xa_options_default(&o);
	o.format = XA_FMT_HTML;
	if (xa_analyze_session_dir(session_dir, &o, &as, err) != XA_OK)
		return -1;
	rc = xa_render_to_path(NULL, as, &o, path);
	if (rc)
		fprintf(err, "xperf: %s: cannot write the report: %s\n", path, xp_out_strerror(rc));
	xa_session_free(as);
	return rc ? -1 : 0;
}

int cmd_run_report(FILE *out, const struct xt_session *s, uint64_t dropped, uint64_t malformed)
{
	struct xt_session_stats st = xt_session_stats(s);
	struct xa_options o;
	struct xa_session *as = NULL;
	char html[4200];

	fprintf(out, "xperf: %d turn%s, %d LLM exchange%s\n", st.turns, xp_s(st.turns),
		st.exchanges, xp_s(st.exchanges));
	if (malformed)
		fprintf(out, "xperf: %llu malformed capture records ignored\n",
			(unsigned long long)malformed);
	if (!st.turns) {
		fprintf(out, "xperf: no LLM exchange seen (paths /v1/messages, /chat/completions, "
			     "/v1/responses, /api/chat, /api/generate; XPERF_LLM_PATHS adds more)"
			     "; %llu records lost\n", (unsigned long long)dropped);
		return 0;
	}
	xa_options_default(&o);
	o.format = XA_FMT_TEXT;
	if (xa_analyze_session_dir(st.dir, &o, &as, out) != XA_OK)
		return -1;
	xa_print_summary(as, out);
	xa_session_free(as);
	snprintf(html, sizeof(html), "%s/report.html", st.dir);
	if (cmd_run_html(st.dir, html, out))
		return -1;
	fprintf(out, "traces: %s/turn_*.json\nreport: %s\n", st.dir, html);
	return 0;
}
