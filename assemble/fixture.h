/* SPDX-License-Identifier: MIT */
/*
 * fixture.h - recorded event sequences as JSON lines, one event per line,
 * for tests and for replaying a capture (`xperf-replay`). Fields mirror
 * struct xt_event: {"type": "exec"|"fork"|"exit"|"sched"|"tls_data"|
 * "tls_close"|"sock_open"|"sock_data"|"sock_close", "ts_ns", "tgid", "tid",
 * ...}; assemble/README.md lists every field. TLS "pos" may be left out: it
 * then continues the stream. Blank lines and lines starting with '#' are
 * skipped.
 */
#ifndef XPERF_ASSEMBLE_FIXTURE_H
#define XPERF_ASSEMBLE_FIXTURE_H

#include "assemble/event.h"

typedef int (*xt_event_fn)(void *ctx, const struct xt_event *ev);

/*
 * Reads path and calls fn per event, in file order. 0 on success; -1 on a
 * bad line ("path:line: message" on stderr) or an unreadable file; fn's
 * nonzero value stops the reading and is returned.
 */
int xt_fixture_read(const char *path, xt_event_fn fn, void *ctx);

#endif /* XPERF_ASSEMBLE_FIXTURE_H */
