// SPDX-License-Identifier: MIT
/*
 * modules.c - the BPF object modules, in start order (one line each).
 * proc first: the traced tree must grow at fork before anything filters.
 */
#include "userspace/module.h"

extern const struct xpc_module xpc_mod_proc;
extern const struct xpc_module xpc_mod_sched;
extern const struct xpc_module xpc_mod_tls;
extern const struct xpc_module xpc_mod_cuda;

const struct xpc_module *const xpc_modules[] = {
	&xpc_mod_proc,
	&xpc_mod_sched,
	&xpc_mod_tls,
	&xpc_mod_cuda,
};

const unsigned int xpc_nmodules = sizeof(xpc_modules) / sizeof(xpc_modules[0]);
