/* SPDX-License-Identifier: MIT */
/*
 * html.h - HTML text escaping for the self-contained HTML reports: every
 * string that comes from traces or directory names goes through it.
 */
#ifndef XPERF_LIB_HTML_H
#define XPERF_LIB_HTML_H

#include <stdio.h>

/* Write s with & < > " ' replaced by entities: safe in element text and in
 * quoted attribute values. */
void xp_html_escape(FILE *out, const char *s);

#endif /* XPERF_LIB_HTML_H */
