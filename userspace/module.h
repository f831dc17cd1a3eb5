/* SPDX-License-Identifier: MIT */
/*
 * module.h - how one BPF object plugs into the capture core (capture.c).
 *
 * A module is userspace/foo.c driving bpf/foo.bpf.c through its skeleton:
 * start() opens it, sets rodata from the options, makes it share the core's
 * maps (xpc_reuse_maps), picks tp_btf or raw_tp programs (xpc_autoload_tp),
 * loads and attaches it. Modules are listed once in modules.c; the core
 * starts them in that order and stops them in reverse.
 */
#ifndef XPERF_USERSPACE_MODULE_H
#define XPERF_USERSPACE_MODULE_H

#include <linux/types.h>
#include <stddef.h>

#include "userspace/capture.h"

struct bpf_object;
struct cJSON;
struct xp_jout;

struct xpc_module {
	const char *name;
	/*
	 * Load and attach; *state is the module's own. Returns 0, -EOPNOTSUPP
	 * to be skipped (e.g. disabled by an option: the core logs it), or a
	 * negative errno after xpc_set_error().
	 */
	int (*start)(struct xpc *c, void **state);
	/*
	 * Process tgid became traced: added by userspace or exec'd a new image
	 * (e.g. attach uprobes to the libraries it maps). May be NULL.
	 */
	int (*on_process)(struct xpc *c, void *state, __u32 tgid);
	/*
	 * Process tgid, traced and held before exec, is about to exec the file
	 * at `path`: attach to what that image itself contains (a statically
	 * linked TLS library, as in node) so its first instruction is covered.
	 * May be NULL.
	 */
	int (*on_command)(struct xpc *c, void *state, __u32 tgid, const char *path);
	/*
	 * Any record, before the user's callback sees it: act on it (e.g.
	 * probe a library a traced process just mapped). May be NULL.
	 */
	int (*on_record)(struct xpc *c, void *state, const struct xk_hdr *rec);
	/*
	 * Whether the record, after every on_record, reaches the user:
	 * XPC_DELIVER, XPC_WITHHOLD (never), or XPC_HOLD (the module kept a
	 * copy and hands it over later with xpc_release(), or never). May be
	 * NULL (deliver). The TLS module holds plaintext of located functions
	 * until it is self-checked (locate_check.h).
	 */
	int (*gate)(struct xpc *c, void *state, const struct xk_hdr *rec);
	/* Add the module's live counters to h (the daemon's metrics; cheap). May be NULL. */
	void (*health)(const void *state, struct xpc_health *h);
	/* Add the module's end-of-run counters to obj (capture.json). May be NULL. */
	void (*stats_json)(void *state, struct cJSON *obj);
	/*
	 * Write the fields of a record of this module's types into the open
	 * object (the header fields are already there). 0 if handled, -ENOENT
	 * if not its type. May be NULL. The fast path of --raw: no tree.
	 */
	int (*write_json)(const struct xk_hdr *rec, struct xp_jout *out);
	/*
	 * The same as fields of a cJSON object, for the types write_json does
	 * not handle (each type has one of the two). May be NULL.
	 */
	int (*to_json)(const struct xk_hdr *rec, struct cJSON *obj);
	/* [XP_EV_TYPE_MAX]: minimum size of a record of each type the module owns, else 0. */
	const __u32 *min_size;
	/* Detach and free; state may be NULL. */
	void (*stop)(void *state);
};

enum { XPC_DELIVER = 0, XPC_WITHHOLD = 1, XPC_HOLD = 2 };

/* Deliver a record a gate held (a copy is fine) to the user's callback now. */
int xpc_release(struct xpc *c, const struct xk_hdr *rec);

/* The modules, in start order (modules.c). */
extern const struct xpc_module *const xpc_modules[];
extern const unsigned int xpc_nmodules;

/* Options the core was opened with (defaults filled in). */
const struct xpc_opts *xpc_options(const struct xpc *c);

/* Make obj use the core's traced/events/drops maps; call before load. */
int xpc_reuse_maps(struct xpc *c, struct bpf_object *obj);

struct bpf_object_skeleton;

/*
 * The end of every module's start(), after open and rodata: share the
 * maps, pick tp_btf or raw_tp, load and attach the skeleton (s is the
 * skeleton's obj->skeleton). 0 or a negative errno with the error set;
 * the caller destroys its skeleton on failure.
 */
int xpc_load_skeleton(struct xpc *c, struct bpf_object_skeleton *s);

/*
 * For each tp_btf/X program of obj whose raw_tp/X twin exists, keep one:
 * tp_btf if this kernel can attach it there and !force_raw, else raw_tp.
 */
void xpc_autoload_tp(struct bpf_object *obj, bool force_raw);

/* The state start() returned for module m, NULL if it is not running. */
void *xpc_module_state(const struct xpc *c, const struct xpc_module *m);

/* Record a one-line error message (printf format); returns neg_errno. */
int xpc_set_error(struct xpc *c, int neg_errno, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * A module's scan of process tgid returned n (>= 0 or -errno): a process
 * gone before it was looked at is not an error; another failure is recorded
 * as "<what> of <tgid>: <reason>" and returned.
 */
int xpc_scan_result(struct xpc *c, int n, __u32 tgid, const char *what);

#endif /* XPERF_USERSPACE_MODULE_H */
