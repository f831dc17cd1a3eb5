// SPDX-License-Identifier: MIT
/*
 * tls_module.c - the tls module of the capture core (module.h): loads the
 * TLS plaintext tier (bpf/tls.bpf.c) and the socket tier (bpf/sock.bpf.c)
 * through tls_probes.h, attaches uprobes to the TLS libraries of every
 * process that becomes traced (on_process: at attach and after each exec)
 * and of every file such a process maps executable later (on_record:
 * XP_EV_MAP_EXEC, a dlopen), and turns their records into JSON with
 * tls_json.h: payload text only when the core was opened with
 * capture_payloads.
 */
#include <errno.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <bpf/libbpf.h>

#include "userspace/module.h"
#include "userspace/tls_json.h"
#include "userspace/tls_probes.h"

const struct xpc_module xpc_mod_tls;

/* to_json has no context argument: the one option it needs, set at start. */
static bool keep_payloads;

static int reuse(void *ctx, struct bpf_object *obj)
{
	return xpc_reuse_maps(ctx, obj);
}

static int tls_start(struct xpc *c, void **state)
{
	const struct xpc_opts *xo = xpc_options(c);
	struct xp_tls_opts o = {
		.cap_bytes = xo->payload_cap,
		.no_plaintext = xo->no_plaintext,
		.per_pid = xo->tls_per_process,
		.watch_maps = !xo->no_cuda,
		.verbose = xo->verbose > 0,
		.reuse_maps = reuse,
		.ctx = c,
	};
	struct xp_tls_probes *p;
	int err;

	keep_payloads = xo->capture_payloads;
	err = xp_tls_probes_open(&p, &o);
	if (err)
		return xpc_set_error(c, err, "tls: cannot load the TLS/socket probes: %s",
				     strerror(-err));
	*state = p;
	return 0;
}

/* A scan's result: a process gone before we looked is not an error. */
static int scanned(struct xpc *c, int n, __u32 tgid)
{
	if (n == -ENOENT || n == -ESRCH || n >= 0)
		return 0;
	return xpc_set_error(c, n, "tls: cannot attach to the TLS libraries of %u: %s", tgid,
			     strerror(-n));
}

static int tls_on_process(struct xpc *c, void *state, __u32 tgid)
{
	return scanned(c, xp_tls_probes_attach_pid(state, tgid), tgid);
}

static int tls_on_record(struct xpc *c, void *state, const struct xp_hdr *rec)
{
	if (rec->type == XP_EV_MAP_EXEC)
		return scanned(c, xp_tls_probes_on_map(state, (const void *)rec), rec->tgid);
	if (rec->type == XP_EV_SOCK_DATA)
		xp_tls_probes_on_io(state, rec->tgid, rec->ts_ns);
	return 0;
}

static void tls_stats_json(void *state, cJSON *o)
{
	struct xp_tls_late l;
	cJSON *late = cJSON_AddObjectToObject(o, "late_libs");

	xp_tls_probes_late(state, &l);
	if (!late)
		return;
	cJSON_AddNumberToObject(late, "map_records", (double)l.maps);
	cJSON_AddNumberToObject(late, "rescans", (double)l.scans);
	cJSON_AddNumberToObject(late, "attached", (double)l.libs);
	cJSON_AddNumberToObject(late, "attach_ms_max", l.attach_ns_max / 1e6);
	cJSON_AddNumberToObject(late, "socket_io_before_probes", (double)l.io_unprobed);
}

static int tls_on_command(struct xpc *c, void *state, __u32 tgid, const char *path)
{
	int n = xp_tls_probes_attach_file(state, path, tgid);

	if (n < 0)
		return xpc_set_error(c, n, "tls: cannot attach to %s: %s", path, strerror(-n));
	return 0;
}

static int tls_to_json(const struct xp_hdr *rec, cJSON *o)
{
	return xp_tls_record_json(rec, o, keep_payloads);
}

static void tls_stop(void *state)
{
	xp_tls_probes_close(state);
}

const struct xpc_module xpc_mod_tls = {
	.name = "tls",
	.start = tls_start,
	.on_process = tls_on_process,
	.on_command = tls_on_command,
	.on_record = tls_on_record,
	.stats_json = tls_stats_json,
	.to_json = tls_to_json,
	.min_size = xp_tls_record_min_size,
	.stop = tls_stop,
};
