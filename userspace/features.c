// SPDX-License-Identifier: MIT
/*
 * features.c - privilege and BTF checks (see features.h), and the runtime
 * choice between tp_btf and raw_tp twins of a program (the tp_btf probe:
 * sock_hooks.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "userspace/features.h"
#include "userspace/module.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool has_cap(const struct __user_cap_data_struct d[2], int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

int xpc_preflight(char *err, size_t errlen)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {};

	if (syscall(SYS_capget, &hdr, d) == 0 && !has_cap(d, CAP_SYS_ADMIN) &&
	    !(has_cap(d, CAP_BPF) && has_cap(d, CAP_PERFMON))) {
		snprintf(err, errlen,
			 "not permitted: xperf-bpf needs root or CAP_BPF and CAP_PERFMON "
			 "(running as uid %u without them)", (unsigned int)geteuid());
		return -EPERM;
	}
	if (access(XPC_BTF_PATH, R_OK)) {
		snprintf(err, errlen, "no kernel BTF: %s: %s (needs CONFIG_DEBUG_INFO_BTF=y)",
			 XPC_BTF_PATH, strerror(errno));
		return -ENOENT;
	}
	return 0;
}

static struct bpf_program *find_by_section(struct bpf_object *obj, const char *sec)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj)
		if (!strcmp(bpf_program__section_name(p), sec))
			return p;
	return NULL;
}

void xpc_autoload_tp(struct bpf_object *obj, bool force_raw)
{
	struct bpf_program *p, *raw;
	char sec[128];

	bpf_object__for_each_program(p, obj) {
		const char *s = bpf_program__section_name(p);

		if (strncmp(s, "tp_btf/", 7))
			continue;
		snprintf(sec, sizeof(sec), "raw_tp/%s", s + 7);
		raw = find_by_section(obj, sec);
		if (!raw)
			continue;
		if (!force_raw && xpc_tp_btf_ok(s + 7))
			bpf_program__set_autoload(raw, false);
		else
			bpf_program__set_autoload(p, false);
	}
}
