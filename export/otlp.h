/* SPDX-License-Identifier: MIT */
/*
 * otlp.h - OTLP/JSON attribute values (otlp_attr.c), shared by the span
 * writer (otlp.c). The OTLP/JSON mapping: int64 values are decimal strings,
 * ids are lowercase hex, enums are their numbers.
 */
#ifndef XPERF_EXPORT_OTLP_H
#define XPERF_EXPORT_OTLP_H

#include <stdint.h>

#include <cjson/cJSON.h>

/* Append {"key": key, "value": AnyValue of v} to the attribute list attrs (v not taken). */
void xe_otlp_attr(cJSON *attrs, const char *key, const cJSON *v);
/* The same, v freed: a typed value made a cJSON one (xp_json_exact_u64, cJSON_CreateBool). */
void xe_otlp_attr_take(cJSON *attrs, const char *key, cJSON *v);
/* The same for a C string. */
void xe_otlp_attr_str(cJSON *attrs, const char *key, const char *s);
/* Every member of obj (an open map of the file) as key prefix + member name. */
void xe_otlp_attr_map(cJSON *attrs, const char *prefix, const cJSON *obj);
/* otlp_cost.c: `xperf.cost.usd` of an LLM span from its typed exchange (shipped prices). */
struct tt_exchange;
void xe_otlp_cost(cJSON *attrs, const struct tt_exchange *ex);

#endif /* XPERF_EXPORT_OTLP_H */
