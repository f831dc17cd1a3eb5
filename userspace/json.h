/* SPDX-License-Identifier: MIT */
/*
 * json.h - one record as a JSON object: the header fields, then the fields
 * of the module that owns the type. The only place records become text;
 * every string is escaped (lib/json_out.h, or cJSON for to_json modules).
 */
#ifndef XPERF_USERSPACE_JSON_H
#define XPERF_USERSPACE_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include <cjson/cJSON.h>

#include "bpf/xperf.h"
#include "bpf/sched.h"

struct xp_jout;

/*
 * rec as one JSON object appended to j (lib/json_out.h): 0, or -ENOMEM
 * (j->err) when memory ran out and the text is cut. A type no module owns
 * gets the header fields only.
 */
int xpc_record_write(struct xp_jout *j, const struct xk_hdr *rec);

/* {"exec": 3, ...}: the nonzero entries of a per-type array, by type name. */
cJSON *xpc_counts_json(const uint64_t v[XP_EV_TYPE_MAX]);

struct xpc;

/* {"tls": {...}}: the end-of-run counters of the running modules (stats_json). */
cJSON *xpc_modules_json(const struct xpc *c);

/* The time and switch counts of a thread's scheduler totals (sched.c). */
void xpc_sched_stats_json(const struct xk_sched_stats *s, cJSON *o);


#endif /* XPERF_USERSPACE_JSON_H */
