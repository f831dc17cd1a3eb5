// SPDX-License-Identifier: MIT
/* tls_json_fuzz.c - arbitrary bytes as a TLS/socket record of their own size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/tls_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xk_hdr *rec;
	cJSON *o;

	if (size < sizeof(*rec))
		return 0;
	rec = malloc(size);
	if (!rec)
		return 0;
	memcpy(rec, data, size);
	rec->size = size;	/* the capture core guarantees size bytes */
	rec->type = XP_EV_TLS_DATA + rec->type % 16;
	o = cJSON_CreateObject();
	xpc_tls_record_json(rec, o, rec->cpu & 1);
	cJSON_Delete(o);
	free(rec);
	return 0;
}
