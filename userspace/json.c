// SPDX-License-Identifier: MIT
/*
 * json.c - record -> JSON object. Header fields are common; the body is
 * delegated to the owning module's to_json (module.h), so a new record
 * type needs no change here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_int.h"
#include "userspace/capture.h"
#include "userspace/json.h"
#include "userspace/module.h"

void xpc_json_add_strn(cJSON *o, const char *key, const char *s, size_t max)
{
	char *copy = strndup(s, max);

	if (copy)
		cJSON_AddStringToObject(o, key, copy);
	free(copy);
}

cJSON *xpc_counts_json(const uint64_t v[XP_EV_TYPE_MAX])
{
	cJSON *o = cJSON_CreateObject();

	for (unsigned int t = 0; o && t < XP_EV_TYPE_MAX; t++)
		if (v[t])
			xp_json_add_u64(o, xpc_type_name(t), v[t]);
	return o;
}

cJSON *xpc_modules_json(const struct xpc *c)
{
	cJSON *o = cJSON_CreateObject();

	for (unsigned int i = 0; o && i < xpc_nmodules; i++) {
		const struct xpc_module *m = xpc_modules[i];
		void *state = xpc_module_state(c, m);
		cJSON *mo;

		if (!state || !m->stats_json)
			continue;
		mo = cJSON_AddObjectToObject(o, m->name);
		if (mo)
			m->stats_json(state, mo);
	}
	return o;
}

cJSON *xpc_record_json(const struct xp_hdr *rec)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "type", xpc_type_name(rec->type));
	xp_json_add_u64(o, "ts_ns", rec->ts_ns);
	cJSON_AddNumberToObject(o, "cpu", rec->cpu);
	cJSON_AddNumberToObject(o, "tgid", rec->tgid);
	cJSON_AddNumberToObject(o, "tid", rec->tid);
	xp_json_add_u64(o, "start_ns", rec->start_ns);
	for (unsigned int i = 0; i < xpc_nmodules; i++)
		if (xpc_modules[i]->to_json && xpc_modules[i]->to_json(rec, o) != -ENOENT)
			break;
	return o;
}
