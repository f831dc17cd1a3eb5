// SPDX-License-Identifier: MIT
/*
 * json.c - record -> JSON text. Header fields are common; the body is
 * delegated to the owning module's write_json (or to_json, through a cJSON
 * object: module.h), so a new record type needs no change here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_int.h"
#include "lib/json_out.h"
#include "userspace/capture.h"
#include "userspace/json.h"
#include "userspace/module.h"

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

/* A module's cJSON fields for rec, appended as members; -ENOENT: not its type. */
static int tree_fields(const struct xpc_module *m, const struct xk_hdr *rec, struct xp_jout *j)
{
	cJSON *o = cJSON_CreateObject();
	char *text;
	int err;

	if (!o)
		return -ENOMEM;
	err = m->to_json(rec, o);
	text = err ? NULL : xp_json_print(o, 0);
	if (!err && !text)
		err = -ENOMEM;
	if (text && strlen(text) > 2)	/* {...}: the members between the braces */
		xp_jout_raw(j, NULL, text + 1, strlen(text) - 2);
	free(text);
	cJSON_Delete(o);
	return err;
}

int xpc_record_write(struct xp_jout *j, const struct xk_hdr *rec)
{
	int err = -ENOENT;

	xp_jout_open(j, NULL, '{');
	xp_jout_str(j, "type", xpc_type_name(rec->type));
	xp_jout_u64(j, "ts_ns", rec->ts_ns);
	xp_jout_u64(j, "cpu", rec->cpu);
	xp_jout_u64(j, "tgid", rec->tgid);
	xp_jout_u64(j, "tid", rec->tid);
	xp_jout_u64(j, "start_ns", rec->start_ns);
	for (unsigned int i = 0; i < xpc_nmodules && err == -ENOENT; i++) {
		const struct xpc_module *m = xpc_modules[i];

		if (m->write_json)
			err = m->write_json(rec, j);
		if (err == -ENOENT && m->to_json)
			err = tree_fields(m, rec, j);
	}
	xp_jout_close(j, '}');
	return j->err ? j->err : err == -ENOMEM ? err : 0;
}
