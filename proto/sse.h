/* SPDX-License-Identifier: MIT */
/*
 * sse.h - incremental splitter for streamed response bodies: Server-Sent
 * Events (text/event-stream: "event:" and "data:" fields up to a blank line,
 * multi-line data joined by '\n') and newline-delimited JSON (Ollama), where
 * every non-empty line is one event. Bytes arrive in any split; each event is
 * handed on with the timestamp of the read that completed it. An event larger
 * than the cap is passed on cut, with its truncated flag set.
 */
#ifndef XPERF_PROTO_SSE_H
#define XPERF_PROTO_SSE_H

#include <stddef.h>
#include <stdint.h>

#define XP_SSE_MAX (1u << 20)

/* event: "" when the stream names none (and always for NDJSON). */
typedef void (*pr_sse_cb)(void *ctx, const char *event, const char *data, size_t len,
			  int truncated, uint64_t t_ns);

struct pr_sse {
	int ndjson;
	int truncated;
	int have_data;
	char event[64];
	char *line; /* the unfinished line */
	size_t line_len, line_cap;
	char *data; /* data of the unfinished event */
	size_t data_len, data_cap;
	pr_sse_cb cb;
	void *ctx;
};

/* ndjson: 1 for newline-delimited JSON, 0 for SSE. */
void pr_sse_init(struct pr_sse *s, int ndjson, pr_sse_cb cb, void *ctx);
/* Feeds body bytes received at t_ns. 0, or -1 when out of memory. */
int pr_sse_feed(struct pr_sse *s, const char *data, size_t len, uint64_t t_ns);
/* End of body: passes on a last event that lacks its final blank line/newline. */
void pr_sse_finish(struct pr_sse *s, uint64_t t_ns);
void pr_sse_free(struct pr_sse *s);

#endif /* XPERF_PROTO_SSE_H */
