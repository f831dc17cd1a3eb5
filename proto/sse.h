/* SPDX-License-Identifier: MIT */
/*
 * sse.h - incremental splitter for streamed response bodies: Server-Sent
 * Events (text/event-stream: "event:" and "data:" fields up to a blank line,
 * multi-line data joined by '\n') and newline-delimited JSON (Ollama), where
 * every non-empty line is one event. Bytes arrive in any split; each event
 * comes back from the call that completed it (the caller times it by that
 * read). An event larger than the cap comes back cut, its truncated flag set.
 */
#ifndef XPERF_PROTO_SSE_H
#define XPERF_PROTO_SSE_H

#include <stddef.h>
#include <stdint.h>

#define XP_SSE_MAX (1u << 20)

/* One split event: valid until the next call on its splitter. */
struct pr_sse_event {
	const char *name; /* "" when the stream names none (and always for NDJSON) */
	const char *data; /* NULL: no event completed */
	size_t len;
	int truncated;    /* cut at XP_SSE_MAX */
};

struct pr_sse {
	int ndjson;
	int truncated;
	int have_data;
	int handed;   /* the event in data was handed out: cleared on the next call */
	char event[64];
	char *line; /* the unfinished line */
	size_t line_len, line_cap;
	char *data; /* data of the unfinished event */
	size_t data_len, data_cap;
};

/* ndjson: 1 for newline-delimited JSON, 0 for SSE. */
void pr_sse_init(struct pr_sse *s, int ndjson);
/*
 * Feeds body bytes up to the end of the first event they complete (*ev; its
 * data NULL when none did). Returns the bytes used, so the caller feeds the
 * rest next; -1 when out of memory.
 */
long pr_sse_feed(struct pr_sse *s, const char *data, size_t len, struct pr_sse_event *ev);
/* End of body: a last event that lacks its final blank line/newline, in *ev. */
void pr_sse_finish(struct pr_sse *s, struct pr_sse_event *ev);
void pr_sse_free(struct pr_sse *s);

#endif /* XPERF_PROTO_SSE_H */
