/* SPDX-License-Identifier: MIT */
/* sse_test.c - SSE and NDJSON splitting across every split of the input. */
#include <string.h>

#include "lib/test_check.h"
#include "proto/split_feed.h"

struct rec {
	int n;
	char events[8][32];
	char data[8][64];
	int truncated;
	uint64_t t[8];
};

static void on_ev(struct rec *r, const struct pr_sse_event *ev, uint64_t t)
{
	if (!ev->data)
		return;
	if (r->n < 8) {
		snprintf(r->events[r->n], sizeof(r->events[0]), "%s", ev->name);
		snprintf(r->data[r->n], sizeof(r->data[0]), "%.*s", (int)ev->len, ev->data);
		r->t[r->n] = t;
	}
	r->truncated += ev->truncated;
	r->n++;
}

/* Feeds in pieces; an event is timed by the piece (its offset) that completed it. */
static void run(struct rec *r, int ndjson, const char *in, size_t piece)
{
	struct pr_sse s;
	struct pr_sse_event ev;
	size_t len = strlen(in);

	memset(r, 0, sizeof(*r));
	pr_sse_init(&s, ndjson);
	for (size_t off = 0; off < len;) {
		size_t k = piece && piece < len - off ? piece : len - off;
		long used;

		for (size_t at = 0; at < k; at += (size_t)used) {
			used = pr_sse_feed(&s, in + off + at, k - at, &ev);
			CHECK(used > 0);
			if (used <= 0)
				break;
			on_ev(r, &ev, off);
		}
		off += k;
	}
	pr_sse_finish(&s, &ev);
	on_ev(r, &ev, 7777);
	pr_sse_free(&s);
}

int main(void)
{
	struct rec r;

	for (size_t i = 0; i < pr_piece_count; i++) {
		size_t piece = pr_piece_sizes[i];

		run(&r, 0, ": ping\r\n\r\nevent: message_start\r\ndata: {\"a\":1}\r\n\r\n"
			   "data: line1\ndata:line2\nid: 7\n\nevent: last\ndata: x", piece);
		CHECK(r.n == 3);
		CHECK(!strcmp(r.events[0], "message_start") && !strcmp(r.data[0], "{\"a\":1}"));
		CHECK(!strcmp(r.events[1], "") && !strcmp(r.data[1], "line1\nline2"));
		CHECK(!strcmp(r.events[2], "last") && !strcmp(r.data[2], "x") && r.t[2] == 7777);
		run(&r, 1, "{\"a\":1}\n\n{\"b\":2}\r\n{\"c\"", piece);
		CHECK(r.n == 3 && !strcmp(r.data[1], "{\"b\":2}") && !strcmp(r.data[2], "{\"c\""));
	}
	/* a blank line after a name without data ends nothing: the name is forgotten */
	run(&r, 0, "event: skip\n\ndata: y\n\nevent: z\ndata: w\n\n", 0);
	CHECK(r.n == 2 && !strcmp(r.events[0], "") && !strcmp(r.data[0], "y") &&
	      !strcmp(r.events[1], "z") && !strcmp(r.data[1], "w"));
	/* the event is timed by the read that completed it */
	run(&r, 0, "data: a\n\n", 0);
	CHECK(r.n == 1 && r.t[0] == 0);
	return test_failures != 0;
}
