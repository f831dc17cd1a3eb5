// SPDX-License-Identifier: MIT
/*
 * tls_module.c - the tls module of the capture core (module.h): loads the
 * TLS plaintext tier (bpf/tls.bpf.c) and the socket tier (bpf/sock.bpf.c)
 * through tls_probes.h, attaches uprobes to the TLS libraries of every
 * process that becomes traced (on_process: at attach and after each exec)
 * and of every file such a process maps executable later (on_record:
 * XP_EV_MAP_EXEC, a dlopen), and turns their records into JSON with
 * tls_json.h: payload text only when the core was opened with
 * capture_payloads. Plaintext of functions found by analysis (no symbols:
 * userspace/locate) passes the self-check of locate_check.h first; a file
 * that fails it is said once on stderr and in capture.json
 * (modules.tls.located), and its connections stay in the ciphertext tier.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <bpf/libbpf.h>

#include "bpf/xperf.h"
#include "bpf/proc.h"
#include "lib/grow.h"
#include "userspace/locate/locate.h"
#include "userspace/locate_check.h"
#include "userspace/module.h"
#include "userspace/sock_hooks.h"
#include "userspace/tls_json.h"
#include "userspace/tls_probes.h"

const struct xpc_module xpc_mod_tls;

/* to_json has no context argument: the one option it needs, set at start. */
static bool keep_payloads;

/* The module's state: the probes and the self-check of located functions. */
struct tls_state {
	struct xpc_tls_probes *probes;
	struct xpc_locate_check *check;
	struct xpc *c;
	/* First failure per located file id, for capture.json. */
	struct failure {
		unsigned int id;
		char function[32], check[16], detail[160];
	} *failures;
	size_t nfailures, cap;
};

static int reuse(void *ctx, struct bpf_object *obj)
{
	return xpc_reuse_maps(ctx, obj);
}

static void release(void *ctx, const struct xk_hdr *rec)
{
	struct tls_state *s = ctx;

	xpc_release(s->c, rec);
}

static uint64_t probed_since(void *ctx, unsigned int id, uint32_t tgid)
{
	struct tls_state *s = ctx;

	return xpc_tls_probes_located_since(s->probes, id, tgid);
}

static void check_failed(void *ctx, unsigned int id, const char *function, const char *check,
			 const char *detail)
{
	struct tls_state *s = ctx;
	const struct xpc_tls_located *l = xpc_tls_probes_located(s->probes, id);
	struct failure *n;

	if (l)	/* the stack's own name for it: "SSL_read", "take_received_plaintext" */
		function = loc_fn_name(&l->r, !strcmp(function, "SSL_read"));
	fprintf(stderr,
		"xperf-bpf: %s: located %s failed the self-check '%s' (%s): its connections stay "
		"in the ciphertext tier\n",
		l ? l->path : "?", function, check, detail);
	if (xp_grow((void **)&s->failures, &s->cap, s->nfailures + 1, sizeof(*n)))
		return;
	n = &s->failures[s->nfailures++];
	n->id = id;
	snprintf(n->function, sizeof(n->function), "%s", function);
	snprintf(n->check, sizeof(n->check), "%s", check);
	snprintf(n->detail, sizeof(n->detail), "%s", detail);
}

static int tls_start(struct xpc *c, void **state)
{
	const struct xpc_opts *xo = xpc_options(c);
	struct xpc_tls_opts o = {
		.cap_bytes = xo->payload_cap,
		.no_plaintext = xo->no_plaintext,
		.per_pid = xo->tls_per_process,
		.sock_hooks = xo->sock_hooks,
		.discover_net = xo->discover_net,
		.watch_maps = !xo->no_cuda,
		.verbose = xo->verbose > 0,
		.reuse_maps = reuse,
		.ctx = c,
	};
	struct tls_state *s = calloc(1, sizeof(*s));
	struct xpc_lc_hooks hooks = { release, check_failed, probed_since, s };
	int err;

	keep_payloads = xo->capture_payloads;
	if (!s || !(s->check = xpc_locate_check_new(&hooks))) {
		free(s);
		return xpc_set_error(c, -ENOMEM, "tls: out of memory");
	}
	s->c = c;
	err = xpc_tls_probes_open(&s->probes, &o);
	if (err) {
		xpc_locate_check_free(s->check);
		free(s);
		return xpc_set_error(c, err, "tls: cannot load the TLS/socket probes: %s",
				     strerror(-err));
	}
	*state = s;
	return 0;
}

/* What a failed scan of a process says (xpc_scan_result). */
#define SCAN_FAILED "tls: cannot attach to the TLS libraries"

static int tls_on_process(struct xpc *c, void *state, __u32 tgid)
{
	struct tls_state *s = state;

	return xpc_scan_result(c, xpc_tls_probes_attach_pid(s->probes, tgid), tgid, SCAN_FAILED);
}

static int tls_on_record(struct xpc *c, void *state, const struct xk_hdr *rec)
{
	struct tls_state *s = state;

	if (rec->type == XP_EV_MAP_EXEC)
		return xpc_scan_result(c, xpc_tls_probes_on_map(s->probes, (const void *)rec),
				       rec->tgid, SCAN_FAILED);
	if (rec->type == XP_EV_SOCK_DATA)
		xpc_tls_probes_on_io(s->probes, rec->tgid, rec->ts_ns);
	if (rec->type == XP_EV_EXIT)
		xpc_tls_probes_on_exit(s->probes, rec->tgid);
	if (rec->type == XP_EV_FORK && !(((const struct xk_fork *)rec)->flags & XP_FORK_THREAD)) {
		pid_t child = ((const struct xk_fork *)rec)->child_tgid;

		return xpc_scan_result(c, xpc_tls_probes_on_fork(s->probes, child), child,
				       SCAN_FAILED);
	}
	return 0;
}

static int tls_gate(struct xpc *c, void *state, const struct xk_hdr *rec)
{
	struct tls_state *s = state;
	static const int verdicts[] = { [XPC_LC_PASS] = XPC_DELIVER, [XPC_LC_DROP] = XPC_WITHHOLD,
					[XPC_LC_HOLD] = XPC_HOLD };

	(void)c;
	return verdicts[xpc_locate_check_record(s->check, rec)];
}

static const char *const check_states[] = { "unchecked", "trusted", "failed" };

/* At the end: a located file whose plaintext was withheld but never judged is said too. */
static void report_unchecked(const struct tls_state *s)
{
	const struct xpc_tls_located *l;
	struct xpc_lc_counts n;

	xpc_locate_check_counts(s->check, &n);
	for (unsigned int id = 1; n.withheld && (l = xpc_tls_probes_located(s->probes, id)); id++) {
		if (l->r.status == LOC_FOUND &&
		    xpc_locate_check_state(s->check, id) == XPC_LC_UNCHECKED)
			fprintf(stderr, "xperf-bpf: %s: located %s functions never passed the "
				"self-check: their connections stayed in the ciphertext tier\n",
				l->path, l->r.stack);
	}
}

/* modules.tls.located: every file the locator reported, and how it stands. */
static void located_json(const struct tls_state *s, cJSON *o)
{
	cJSON *arr = cJSON_AddArrayToObject(o, "located");
	const struct xpc_tls_located *l;
	struct xpc_lc_counts n;

	for (unsigned int id = 1; arr && (l = xpc_tls_probes_located(s->probes, id)); id++) {
		cJSON *e = cJSON_CreateObject();
		char off[32];

		if (!e)
			break;
		cJSON_AddItemToArray(arr, e);
		cJSON_AddStringToObject(e, "file", l->path);
		cJSON_AddStringToObject(e, "stack", l->r.stack);
		cJSON_AddStringToObject(e, "identity", l->r.key);
		cJSON_AddStringToObject(e, "how", l->r.why);
		cJSON_AddBoolToObject(e, "from_cache", l->r.from_cache);
		cJSON_AddNumberToObject(e, "locate_ms", l->r.ms);
		if (l->r.status != LOC_FOUND) {
			cJSON_AddStringToObject(e, "status", "not located");
			continue;
		}
		snprintf(off, sizeof(off), "0x%llx", (unsigned long long)l->r.write_off);
		cJSON_AddStringToObject(e, "SSL_write", off);
		snprintf(off, sizeof(off), "0x%llx", (unsigned long long)l->r.read_off);
		cJSON_AddStringToObject(e, "SSL_read", off);
		cJSON_AddStringToObject(e, "status",
					check_states[xpc_locate_check_state(s->check, id)]);
		for (size_t i = 0; i < s->nfailures; i++) {
			if (s->failures[i].id != id)
				continue;
			cJSON_AddStringToObject(e, "failed_function", s->failures[i].function);
			cJSON_AddStringToObject(e, "failed_check", s->failures[i].check);
			cJSON_AddStringToObject(e, "failed_detail", s->failures[i].detail);
		}
	}
	xpc_locate_check_counts(s->check, &n);
	cJSON_AddNumberToObject(o, "located_checks_passed", (double)n.passed);
	cJSON_AddNumberToObject(o, "located_records_withheld", (double)(n.withheld + n.held_over));
}

/* Live: files the self-check failed, records they withheld (no finish: the run goes on). */
static void tls_health(const void *state, struct xpc_health *h)
{
	const struct tls_state *s = state;
	struct xpc_lc_counts n;

	xpc_locate_check_counts(s->check, &n);
	h->located_failed += s->nfailures;
	h->located_withheld += n.withheld + n.held_over;
}

static void tls_stats_json(void *state, cJSON *o)
{
	const struct tls_state *s = state;
	const struct xpc_tls_stats *st = xpc_tls_probes_stats(s->probes);
	const struct xpc_tls_late *l = &st->late;
	cJSON *late;

	cJSON_AddStringToObject(o, "socket_hooks", xpc_sock_hooks_name(st->sock_hooks));
	cJSON_AddStringToObject(o, "socket_hooks_why", st->sock_hooks_why);
	if (st->copy_why)
		cJSON_AddStringToObject(o, "tls_copy", st->copy_why);
	xpc_locate_check_finish(s->check);	/* capture.json is written at the end of the run */
	report_unchecked(s);
	located_json(s, o);
	late = cJSON_AddObjectToObject(o, "late_libs");
	if (!late)
		return;
	cJSON_AddNumberToObject(late, "map_records", (double)l->maps);
	cJSON_AddNumberToObject(late, "rescans", (double)l->scans);
	cJSON_AddNumberToObject(late, "attached", (double)l->libs);
	cJSON_AddNumberToObject(late, "attach_ms_max", l->attach_ns_max / 1e6);
	cJSON_AddNumberToObject(late, "socket_io_before_probes", (double)l->io_unprobed);
}

static int tls_on_command(struct xpc *c, void *state, __u32 tgid, const char *path)
{
	struct tls_state *s = state;
	int n = xpc_tls_probes_attach_file(s->probes, path, tgid);

	if (n < 0)
		return xpc_set_error(c, n, "tls: cannot attach to %s: %s", path, strerror(-n));
	return 0;
}

static int tls_to_json(const struct xk_hdr *rec, cJSON *o)
{
	return xpc_tls_record_json(rec, o, keep_payloads);
}

static void tls_stop(void *state)
{
	struct tls_state *s = state;

	if (!s)
		return;
	xpc_tls_probes_close(s->probes);
	xpc_locate_check_free(s->check);
	free(s->failures);
	free(s);
}

int xpc_discover_net(struct xpc *c, int kind, const char *const *names, unsigned int n)
{
	struct tls_state *s = xpc_module_state(c, &xpc_mod_tls);
	int err;

	if (!s)
		return xpc_set_error(c, -ENOENT, "tls: not running");
	err = xpc_tls_probes_discover(s->probes, kind, names, n);
	return err ? xpc_set_error(c, err, "sock: discovery rules: %s", strerror(-err)) : 0;
}

int xpc_probe_node_libs(struct xpc *c, pid_t pid)
{
	struct tls_state *s = xpc_module_state(c, &xpc_mod_tls);
	int n;

	if (!s)
		return 0;
	n = xpc_tls_probes_attach_root(s->probes, pid);
	return n < 0 ? xpc_set_error(c, n, "tls: the TLS libraries of pid %d's root: %s",
				     (int)pid, strerror(-n)) : n;
}

int xpc_discover_stats(struct xpc *c, uint64_t stats[XP_DSTAT_MAX])
{
	struct tls_state *s = xpc_module_state(c, &xpc_mod_tls);

	return s ? xpc_tls_probes_discover_stats(s->probes, stats) : -ENOENT;
}

const struct xpc_module xpc_mod_tls = {
	.name = "tls",
	.start = tls_start,
	.on_process = tls_on_process,
	.on_command = tls_on_command,
	.on_record = tls_on_record,
	.gate = tls_gate,
	.health = tls_health,
	.stats_json = tls_stats_json,
	.to_json = tls_to_json,
	.min_size = xpc_tls_record_min_size,
	.stop = tls_stop,
};
