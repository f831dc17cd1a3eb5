// SPDX-License-Identifier: MIT
/*
 * tls_libs.c - TLS library discovery for the uprobe tier (see tls_libs.h).
 *
 * A process is read through /proc/PID/maps and /proc/PID/root, never
 * through the host's ldconfig: the path a container maps is resolved in
 * the container's own root. Whether an object is a TLS library is decided
 * by its exported dynamic symbols (libelf), not by its name, so node and
 * any other static build with exported SSL_* are found the same way as
 * libssl.so.3 (either the int or the _ex API will do). (dev, inode) pairs already examined are remembered, so a
 * library shared by a thousand processes is opened once.
 */
#include "userspace/tls_libs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/grow.h"
#include "userspace/locate/locate.h"

/* Where a dlopen'd libssl is found in practice (Debian, RHEL, Alpine...). */
static const char *const lib_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
	"/usr/local/lib", "/usr/local/ssl/lib",
};

static const struct {
	const char *name;
	unsigned int bit;
} ssl_syms[] = {
	{ "SSL_write", XPC_TLS_SYM_WRITE },
	{ "SSL_read", XPC_TLS_SYM_READ },
	{ "SSL_write_ex", XPC_TLS_SYM_WRITE_EX },
	{ "SSL_read_ex", XPC_TLS_SYM_READ_EX },
	{ "SSL_free", XPC_TLS_SYM_FREE },
};

struct devino {
	dev_t dev;
	ino_t ino;
};

struct xpc_tls_libset {
	struct devino *seen;
	size_t n, cap;
	struct loc_locator *locator;	/* NULL: symbols only */
};

/* The dynsym section's defined functions, matched against ssl_syms. */
static unsigned int elf_ssl_syms(Elf *elf)
{
	unsigned int mask = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || strncmp(name, "SSL_", 4))
				continue;
			for (size_t k = 0; k < sizeof(ssl_syms) / sizeof(ssl_syms[0]); k++)
				if (!strcmp(name, ssl_syms[k].name))
					mask |= ssl_syms[k].bit;
		}
	}
	return mask;
}

unsigned int xpc_tls_elf_ssl_syms_fd(int fd)
{
	unsigned int mask = 0;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return 0;
	if (elf_kind(elf) == ELF_K_ELF)
		mask = elf_ssl_syms(elf);
	elf_end(elf);
	return mask;
}

struct xpc_tls_libset *xpc_tls_libset_new(struct loc_locator *l)
{
	struct xpc_tls_libset *set = calloc(1, sizeof(*set));

	if (set)
		set->locator = l;
	return set;
}

void xpc_tls_libset_free(struct xpc_tls_libset *set)
{
	if (!set)
		return;
	free(set->seen);
	free(set);
}

int xpc_tls_libset_has(const struct xpc_tls_libset *set, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->seen[i].dev == dev && set->seen[i].ino == ino)
			return 1;
	return 0;
}

/* Forget a file (its probes could not be attached): the next scan that meets it tries again. */
static void forget(struct xpc_tls_libset *set, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->seen[i].dev == dev && set->seen[i].ino == ino) {
			set->seen[i] = set->seen[--set->n];
			return;
		}
}

int xpc_tls_libset_add(struct xpc_tls_libset *set, dev_t dev, ino_t ino)
{
	if (xpc_tls_libset_has(set, dev, ino))
		return 0;
	if (xp_grow((void **)&set->seen, &set->cap, set->n + 1, sizeof(*set->seen)))
		return -ENOMEM;
	set->seen[set->n++] = (struct devino){ dev, ino };
	return 1;
}

/* An object without SSL_* symbols: what the locator finds in it (closes fd). */
static int located(struct xpc_tls_libset *set, int fd, const char *path, xpc_tls_lib_cb cb,
		   void *ctx)
{
	struct loc_result r;
	int err = loc_locator_file(set->locator, fd, &r);

	close(fd);
	if (err || r.status == LOC_NONE)
		return 0;
	err = cb(ctx, path, 0, &r);
	return err < 0 ? err : r.status == LOC_FOUND;
}

int xpc_tls_libs_scan_file(struct xpc_tls_libset *set, const char *path, xpc_tls_lib_cb cb,
			   void *ctx)
{
	unsigned int syms;
	struct stat st;
	int fd, added;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	added = xpc_tls_libset_add(set, st.st_dev, st.st_ino);
	syms = added == 1 ? xpc_tls_elf_ssl_syms_fd(fd) : 0;
	if (added == 1 && !xpc_tls_syms_usable(syms) && set->locator)
		return located(set, fd, path, cb, ctx);
	close(fd);
	if (added < 0)
		return added;
	if (!xpc_tls_syms_usable(syms))
		return 0;
	added = cb(ctx, path, syms, NULL);
	/*
	 * Not probed (e.g. the process was still in its exec, where
	 * /proc/PID/root lookups can fail): its next mapping tries again.
	 */
	if (added < 0)
		forget(set, st.st_dev, st.st_ino);
	return added < 0 ? added : 1;
}

/* libssl.so* in one standard directory of root: the count reported, or a cb error. */
static int scan_dir(struct xpc_tls_libset *set, const char *root, const char *dir,
		    xpc_tls_lib_cb cb, void *ctx)
{
	char path[PATH_MAX];
	struct dirent *de;
	int found = 0, r = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s%s", root, dir);
	d = opendir(path);
	if (!d)
		return 0;
	while (r >= 0 && (de = readdir(d))) {
		if (strncmp(de->d_name, "libssl.so", 9))
			continue;
		snprintf(path, sizeof(path), "%s%s/%s", root, dir, de->d_name);
		r = xpc_tls_libs_scan_file(set, path, cb, ctx);
		found += r > 0 ? r : 0;
	}
	closedir(d);
	return r < 0 ? r : found;
}

int xpc_tls_libs_scan_root(struct xpc_tls_libset *set, const char *root, xpc_tls_lib_cb cb,
			   void *ctx)
{
	int found = 0, r;
	struct stat st;

	if (stat(root, &st) || xpc_tls_libset_add(set, st.st_dev, st.st_ino) != 1)
		return 0;
	for (size_t i = 0; i < sizeof(lib_dirs) / sizeof(lib_dirs[0]); i++) {
		r = scan_dir(set, root, lib_dirs[i], cb, ctx);
		if (r < 0) {
			/* Not probed (its process gone mid-scan): the next process of that root tries again. */
			forget(set, st.st_dev, st.st_ino);
			return r;
		}
		found += r;
	}
	return found;
}

struct scan {
	struct xpc_tls_libset *set;
	xpc_tls_lib_cb cb;
	void *ctx;
};

/* xpc_map_cb: an executable mapping is examined as a file. */
static int scan_mapping(void *ctx, const char *path, const struct xpc_map_ent *e)
{
	struct scan *s = ctx;

	return e->perms[2] == 'x' ? xpc_tls_libs_scan_file(s->set, path, s->cb, s->ctx) : 0;
}

int xpc_tls_libs_scan_pid(struct xpc_tls_libset *set, pid_t pid, xpc_tls_lib_cb cb, void *ctx)
{
	struct scan s = { set, cb, ctx };
	char root[64];
	int found, r;

	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	found = xpc_tls_libs_scan_root(set, root, cb, ctx);
	r = found < 0 ? found : xpc_maps_walk(pid, scan_mapping, &s);
	return r < 0 ? r : found + r;
}
