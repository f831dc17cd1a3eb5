// SPDX-License-Identifier: MIT
/*
 * tls_module.c - the tls module of the capture core (module.h): loads the
 * TLS plaintext tier (bpf/tls.bpf.c) and the socket tier (bpf/sock.bpf.c)
 * through tls_probes.h, attaches uprobes to the TLS libraries of every
 * process that becomes traced (on_process: at attach and after each exec),
 * and turns their records into JSON with tls_json.h: payload text only when
 * the core was opened with capture_payloads.
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

static int tls_on_process(struct xpc *c, void *state, __u32 tgid)
{
	int n = xp_tls_probes_attach_pid(state, tgid);

	/* A process gone before we looked: nothing to attach, not an error. */
	if (n == -ENOENT || n == -ESRCH)
		return 0;
	if (n < 0)
		return xpc_set_error(c, n, "tls: cannot attach to the TLS libraries of %u: %s",
				     tgid, strerror(-n));
	return 0;
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
	.to_json = tls_to_json,
	.min_size = xp_tls_record_min_size,
	.stop = tls_stop,
};
