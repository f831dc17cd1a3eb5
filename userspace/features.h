/* SPDX-License-Identifier: MIT */
/*
 * features.h - what this kernel and this process can do, checked before
 * anything is loaded so that failures are one clear line, not a libbpf
 * verifier dump.
 */
#ifndef XPERF_USERSPACE_FEATURES_H
#define XPERF_USERSPACE_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

#include "userspace/sock_hooks.h"	/* xpc_tp_btf_ok() */

#define XPC_BTF_PATH "/sys/kernel/btf/vmlinux"

/*
 * 0 when the process may load and attach tracing BPF programs and the
 * kernel has BTF. Otherwise a one-line message in err and -EPERM (neither
 * root nor CAP_BPF + CAP_PERFMON) or -ENOENT (no kernel BTF).
 */
int xpc_preflight(char *err, size_t errlen);


#endif /* XPERF_USERSPACE_FEATURES_H */
