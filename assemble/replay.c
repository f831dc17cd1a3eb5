/* SPDX-License-Identifier: MIT */
/*
 * replay.c - `xperf-replay`: runs the turn assembler over a recorded event
 * sequence (assemble/fixture.h) and writes the TurnTrace files, as the live
 * recorder would. For tests and for re-assembling a saved capture.
 *   xperf-replay [-o DIR] [--session ID] [--ciphertext] [--cut] EVENTS.jsonl
 * Exit: 0 ok, 1 a file could not be written, 2 bad input, 64 usage.
 */
#include <stdio.h>
#include <string.h>

#include "assemble/fixture.h"
#include "assemble/session.h"
#include "lib/args.h"
#include "lib/exit_codes.h"
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

enum { OPT_SESSION = 256, OPT_CIPHERTEXT, OPT_CUT };

static const struct argp_option options[] = {
	{ "output", 'o', "DIR", 0, "trace directory (.xperf/traces)", 0 },
	{ "session", OPT_SESSION, "ID", 0, "session id (replay)", 0 },
	{ "ciphertext", OPT_CIPHERTEXT, NULL, 0, "time exchanges from socket events (no plaintext)", 0 },
	{ "cut", OPT_CUT, NULL, 0, "the capture was cut: the last turn is incomplete", 0 },
	{ 0 },
};

struct args {
	struct xt_config cfg;
	const char *events;
	int cut;
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case 'o': a->cfg.out_dir = arg; break;
	case OPT_SESSION: a->cfg.session_id = arg; break;
	case OPT_CIPHERTEXT: a->cfg.ciphertext = 1; break;
	case OPT_CUT: a->cut = 1; break;
	case ARGP_KEY_ARG:
		if (state->arg_num)
			return ARGP_ERR_UNKNOWN;
		a->events = arg;
		break;
	case ARGP_KEY_NO_ARGS: xp_args_fail(state, "no EVENTS.jsonl given");
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct xp_args args = { "xperf-replay", options, parse_arg, "EVENTS.jsonl",
					     "Assemble recorded events into TurnTrace files.", 0,
					     NULL };
	/* The events' clock is the recording's: no anchor from this machine's now. */
	struct args a = { .cfg = { .out_dir = ".xperf/traces", .session_id = "replay",
				   .no_clock_anchor = 1 } };
	struct run r = { 0 };
	struct xt_session_stats st;
	int rc;

	if (xp_args_parse(&args, argc, argv, &a))
		return XP_EXIT_USAGE;
	r.s = xt_session_new(&a.cfg);
	if (!r.s)
		return 1;
	rc = xt_fixture_read(a.events, on_event, &r);
	if (rc == 0)
		rc = xt_session_finish(r.s, r.last_ts, r.agent_exited && !a.cut) ? 1 : 0;
	else
		rc = rc < 0 ? 2 : 1;
	st = xt_session_stats(r.s);
	if (rc == 0)
		printf("%d turn%s, %d exchange%s -> %s\n", st.turns, xp_s(st.turns), st.exchanges,
		       xp_s(st.exchanges), st.dir);
	xt_session_free(r.s);
	return rc;
}
