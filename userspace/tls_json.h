/* SPDX-License-Identifier: MIT */
/*
 * tls_json.h - the records of bpf/tls.h and bpf/sock.h as JSON fields
 * (cJSON): what the tls module hands the capture core's sinks. Pure.
 */
#ifndef XPERF_USERSPACE_TLS_JSON_H
#define XPERF_USERSPACE_TLS_JSON_H

#include <stdbool.h>
#include <linux/types.h>

#include <cjson/cJSON.h>

#include "bpf/xperf.h"
#include "bpf/sock.h"
#include "bpf/tls.h"

/* Smallest valid size of a record of each type, 0 if not a TLS/socket type. */
extern const __u32 xpc_tls_record_min_size[XP_EV_TYPE_MAX];

/*
 * Add the body fields of rec (rec->size bytes readable) to o. Payload
 * only when `payloads`, credential headers redacted: "payload" if it is
 * UTF-8 without NUL, else "payload_base64" (the JSON stays valid UTF-8).
 * A record whose lengths do not add up gets "malformed": true and nothing
 * else. Returns 0, or -ENOENT when the type is not a TLS/socket one.
 */
int xpc_tls_record_json(const struct xk_hdr *rec, cJSON *o, bool payloads);

#endif /* XPERF_USERSPACE_TLS_JSON_H */
