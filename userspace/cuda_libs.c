// SPDX-License-Identifier: MIT
/*
 * cuda_libs.c - CUDA library discovery for the cuda module (cuda_libs.h).
 *
 * The maps walk is procfs.c's (xpc_maps_walk); unlike a TLS library,
 * a CUDA library is recognised by its file name (gp_cuda_lib_of): nothing
 * links the CUDA runtime under another name, and libbpf resolves the
 * probed symbols itself, saying so when one is missing. Any mapping counts
 * (not only executable ones): the file is what the uprobes go on.
 */
#include "userspace/cuda_libs.h"

#include <errno.h>
#include <sys/sysmacros.h>

#include "gpu/cuda_uprobes.h"

struct scan {
	struct xpc_tls_libset *plain;
	xpc_cuda_lib_cb cb;
	void *ctx;
};

/* xpc_map_cb: a CUDA library goes to cb, any other file into `plain`. */
static int scan_mapping(void *ctx, const char *path, const struct xpc_map_ent *e)
{
	struct scan *s = ctx;
	dev_t dev = makedev(e->dev_major, e->dev_minor);

	if (gp_cuda_lib_of(path) >= 0)
		return s->cb(s->ctx, path, dev, e->inode);
	return xpc_tls_libset_add(s->plain, dev, e->inode) < 0 ? -ENOMEM : 0;
}

int xpc_cuda_libs_scan_pid(struct xpc_tls_libset *plain, pid_t pid, xpc_cuda_lib_cb cb, void *ctx)
{
	struct scan s = { plain, cb, ctx };

	return xpc_maps_walk(pid, scan_mapping, &s);
}
