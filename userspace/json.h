/* SPDX-License-Identifier: MIT */
/*
 * json.h - one record as a JSON object (cJSON): the header fields, then
 * the fields of the module that owns the type. The only place records
 * become text; every string is escaped by cJSON.
 */
#ifndef XPERF_USERSPACE_JSON_H
#define XPERF_USERSPACE_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include <cjson/cJSON.h>

#include "bpf/xperf.h"
#include "bpf/sched.h"

/* A new object for rec (caller frees with cJSON_Delete); NULL on ENOMEM. */
cJSON *xpc_record_json(const struct xp_hdr *rec);

/* {"exec": 3, ...}: the nonzero entries of a per-type array, by type name. */
cJSON *xpc_counts_json(const uint64_t v[XP_EV_TYPE_MAX]);

struct xpc;

/* {"tls": {...}}: the end-of-run counters of the running modules (stats_json). */
cJSON *xpc_modules_json(const struct xpc *c);

/* The time and switch counts of a thread's scheduler totals (sched.c). */
void xpc_sched_stats_json(const struct xp_sched_stats *s, cJSON *o);

/* Add a string of at most max bytes that may lack its NUL (kernel arrays). */
void xpc_json_add_strn(cJSON *o, const char *key, const char *s, size_t max);

#endif /* XPERF_USERSPACE_JSON_H */
