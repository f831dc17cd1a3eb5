/* SPDX-License-Identifier: MIT */
/*
 * replay.c - `xperf-replay`: runs the turn assembler over a recorded event
 * sequence (assemble/fixture.h) and writes the TurnTrace files, as the live
 * recorder would. For tests and for re-assembling a saved capture.
 *   xperf-replay [-o DIR] [--session ID] [--ciphertext] [--cut] EVENTS.jsonl
 * Exit: 0 ok, 1 a file could not be written, 2 bad input, 64 usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "assemble/fixture.h"
#include "assemble/session.h"
#include "lib/plural.h"

struct run {
	struct xt_session *s;
	uint64_t last_ts;
	uint32_t first_tgid;
	int agent_exited;
};

static int on_event(void *ctx, const struct xt_event *ev)
{
	struct run *r = ctx;

	if (ev->ts_ns > r->last_ts)
		r->last_ts = ev->ts_ns;
	if (!r->first_tgid)
		r->first_tgid = ev->tgid;
	if (ev->kind == XT_EXIT && ev->tgid == r->first_tgid)
		r->agent_exited = 1;
	return xt_session_event(r->s, ev) ? 1 : 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: xperf-replay [-o DIR] [--session ID] [--ciphertext] [--cut] "
			"EVENTS.jsonl\n");
	return 64;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "session", required_argument, NULL, 's' },
		{ "ciphertext", no_argument, NULL, 'c' },
		{ "cut", no_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	/* The events' clock is the recording's: no anchor from this machine's now. */
	struct xt_config cfg = { .out_dir = ".xperf/traces", .session_id = "replay",
				 .no_clock_anchor = 1 };
	struct run r = { 0 };
	int opt, cut = 0, rc;

	while ((opt = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		if (opt == 'o')
			cfg.out_dir = optarg;
		else if (opt == 's')
			cfg.session_id = optarg;
		else if (opt == 'c')
			cfg.ciphertext = 1;
		else if (opt == 'u')
			cut = 1;
		else
			return usage();
	}
	if (optind != argc - 1)
		return usage();
	r.s = xt_session_new(&cfg);
	if (!r.s)
		return 1;
	rc = xt_fixture_read(argv[optind], on_event, &r);
	if (rc == 0)
		rc = xt_session_finish(r.s, r.last_ts, r.agent_exited && !cut) ? 1 : 0;
	else
		rc = rc < 0 ? 2 : 1;
	if (rc == 0)
		printf("%d turn%s, %d exchange%s -> %s\n", xt_session_turns(r.s),
		       xp_s(xt_session_turns(r.s)), xt_session_exchanges(r.s),
		       xp_s(xt_session_exchanges(r.s)), xt_session_dir(r.s));
	xt_session_free(r.s);
	return rc;
}
