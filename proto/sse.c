/* SPDX-License-Identifier: MIT */
/* sse.c - SSE (WHATWG HTML "event stream" parsing) and NDJSON line splitting. */
#include "proto/sse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

void pr_sse_init(struct pr_sse *s, int ndjson)
{
	*s = (struct pr_sse){ .ndjson = ndjson };
}

void pr_sse_free(struct pr_sse *s)
{
	free(s->line);
	free(s->data);
	s->line = s->data = NULL;
}

/* Appends up to the cap; sets *cut when bytes had to be dropped. -1 on ENOMEM. */
static int append(char **buf, size_t *len, size_t *cap, const char *d, size_t n, int *cut)
{
	if (*len + n > XP_SSE_MAX) {
		n = XP_SSE_MAX - *len;
		*cut = 1;
	}
	return xp_buf_append(buf, len, cap, d, n);
}

static void clear(struct pr_sse *s)
{
	s->event[0] = '\0';
	s->data_len = 0;
	s->have_data = 0;
	s->truncated = 0;
	s->handed = 0;
}

/* A blank line ends the event: handed out when it has data (cleared on the next call). */
static void emit(struct pr_sse *s, struct pr_sse_event *ev)
{
	if (!s->have_data) {
		clear(s);
		return;
	}
	*ev = (struct pr_sse_event){ s->event, s->data ? s->data : "", s->data_len, s->truncated };
	s->handed = 1;
}

/* One complete line (without its line break). */
static int on_line(struct pr_sse *s, const char *l, size_t n, struct pr_sse_event *ev)
{
	if (s->ndjson) {
		if (n == 0)
			return 0;
		*ev = (struct pr_sse_event){ "", l, n, s->truncated };
		s->truncated = 0;
		return 0;
	}
	if (n == 0) {
		emit(s, ev);
		return 0;
	}
	const char *colon = memchr(l, ':', n);
	size_t flen = colon ? (size_t)(colon - l) : n;
	const char *v = colon ? colon + 1 : l + n;
	size_t vlen = n - (size_t)(v - l);

	if (vlen && *v == ' ') {
		v++;
		vlen--;
	}
	if (flen == 5 && !memcmp(l, "event", 5)) {
		snprintf(s->event, sizeof(s->event), "%.*s", (int)vlen, v);
	} else if (flen == 4 && !memcmp(l, "data", 4)) {
		if (s->have_data && append(&s->data, &s->data_len, &s->data_cap, "\n", 1,
					   &s->truncated))
			return -1;
		s->have_data = 1;
		return append(&s->data, &s->data_len, &s->data_cap, v, vlen, &s->truncated);
	}
	return 0; /* comments (":"), id, retry: nothing to time */
}

long pr_sse_feed(struct pr_sse *s, const char *data, size_t len, struct pr_sse_event *ev)
{
	size_t used = 0;

	memset(ev, 0, sizeof(*ev));
	if (s->handed)
		clear(s);
	while (used < len && !ev->data) {
		const char *d = data + used;
		const char *nl = memchr(d, '\n', len - used);
		size_t take = nl ? (size_t)(nl - d) : len - used;

		if (append(&s->line, &s->line_len, &s->line_cap, d, take, &s->truncated))
			return -1;
		if (!nl)
			return (long)len;
		size_t n = s->line_len;

		if (n && s->line[n - 1] == '\r')
			n--;
		if (on_line(s, s->line ? s->line : "", n, ev))
			return -1;
		s->line_len = 0;
		used += take + 1;
	}
	return (long)used;
}

void pr_sse_finish(struct pr_sse *s, struct pr_sse_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	if (s->handed)
		clear(s);
	if (s->line_len) {
		on_line(s, s->line, s->line_len, ev);
		s->line_len = 0;
	}
	if (!s->ndjson)
		emit(s, ev);
}
