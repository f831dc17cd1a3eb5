// SPDX-License-Identifier: MIT
/*
 * traced.c - the traced set from userspace (traced.h). The flags map is
 * an mmapable array: the page holding tgid's byte is mapped for the one
 * store, so userspace needs no lookup-modify-update of a 64-byte entry
 * that the kernel's fork and exit hooks may be writing at the same time.
 */
#include "userspace/traced.h"

#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>

static __u32 pid_max(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	unsigned int n = 0;

	if (f) {
		if (fscanf(f, "%u", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n && n <= XP_PID_MAX_LIMIT ? n : XP_PID_MAX_LIMIT;
}

int xpc_traced_flags_create(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_MMAPABLE);
	__u32 n = (pid_max() + XP_FLAGS_PER_ENTRY - 1) / XP_FLAGS_PER_ENTRY;
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "traced_flags", sizeof(__u32),
				sizeof(struct xk_traced_flags), n, &o);

	return fd < 0 ? -errno : fd;
}

/* Set or clear tgid's byte; a tgid beyond the map (pid_max raised since) has none. */
static int flag_put(int flags_fd, __u32 tgid, unsigned char on)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	long page = sysconf(_SC_PAGESIZE);
	off_t off = (off_t)tgid / page * page;
	unsigned char *p;

	if (bpf_obj_get_info_by_fd(flags_fd, &info, &len))
		return -errno;
	if ((__u64)tgid >= (__u64)info.max_entries * XP_FLAGS_PER_ENTRY)
		return 0;
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, flags_fd, off);
	if (p == MAP_FAILED)
		return -errno;
	p[tgid - off] = on;
	munmap(p, page);
	return 0;
}

int xpc_traced_add(int traced_fd, int flags_fd, __u32 tgid, const struct xk_traced *v)
{
	struct xk_traced held;
	int err = flag_put(flags_fd, tgid, 1);

	if (err)
		return err;
	if (!bpf_map_update_elem(traced_fd, &tgid, v, BPF_ANY))
		return 0;
	err = -errno;
	/* refused (map full): the byte says traced only while the hash holds tgid */
	if (bpf_map_lookup_elem(traced_fd, &tgid, &held))
		flag_put(flags_fd, tgid, 0);
	return err;
}

int xpc_traced_remove(int traced_fd, int flags_fd, __u32 tgid)
{
	int err = bpf_map_delete_elem(traced_fd, &tgid) ? -errno : 0;

	return flag_put(flags_fd, tgid, 0) ?: err;
}
