/* SPDX-License-Identifier: MIT */
/*
 * tls_libs.h - find the TLS libraries a process really uses, so uprobes go
 * on the right inodes: the libssl it maps (through /proc/PID/root, so a
 * container's own libssl is found, not the host's), executables and
 * libraries that link OpenSSL statically and export SSL_* (node), and the
 * libssl.so* files in the standard library directories of the process's
 * root (a later dlopen, e.g. python's `import ssl`, then needs no attach:
 * uprobes are per inode and cover every process mapping it).
 * Every object is examined once per (dev, inode).
 */
#ifndef XPERF_USERSPACE_TLS_LIBS_H
#define XPERF_USERSPACE_TLS_LIBS_H

#include <sys/types.h>

#include "userspace/procfs.h"

/* Bits of the SSL_* functions an ELF object defines and exports. */
enum xpc_tls_sym {
	XPC_TLS_SYM_WRITE = 1,
	XPC_TLS_SYM_READ = 2,
	XPC_TLS_SYM_WRITE_EX = 4,
	XPC_TLS_SYM_READ_EX = 8,
	XPC_TLS_SYM_FREE = 16,
};

/*
 * Whether an object is worth probing: it can write and read, through the
 * int or the _ex API (a static OpenSSL 3 may keep only the _ex pair).
 */
static inline int xpc_tls_syms_usable(unsigned int syms)
{
	return (syms & (XPC_TLS_SYM_WRITE | XPC_TLS_SYM_WRITE_EX)) &&
	       (syms & (XPC_TLS_SYM_READ | XPC_TLS_SYM_READ_EX));
}

/*
 * Symbols of enum xpc_tls_sym that the ELF file open at fd (mmap'd
 * read-only) defines in its dynamic symbol table. Returns the mask (0:
 * none, not ELF or corrupt).
 */
unsigned int xpc_tls_elf_ssl_syms_fd(int fd);

struct loc_result;
struct loc_locator;

/*
 * An object found: path to attach (through /proc/PID/root), its symbols,
 * or (syms 0) what the locator found in it: loc->status LOC_FOUND, or
 * LOC_FAILED for a known stack that could not be resolved (reported,
 * not attached). Returns 0, or a negative errno that stops the scan.
 */
typedef int (*xpc_tls_lib_cb)(void *ctx, const char *path, unsigned int syms,
			      const struct loc_result *loc);

struct xpc_tls_libset;

/*
 * A set of already examined (dev, inode) pairs; objects without usable
 * SSL_* symbols go to locator l (locate.h; NULL: symbols only), which the
 * set does not own. NULL on ENOMEM.
 */
struct xpc_tls_libset *xpc_tls_libset_new(struct loc_locator *l);
void xpc_tls_libset_free(struct xpc_tls_libset *set);

/* Whether (dev, ino) was examined already (a scan would skip it). */
int xpc_tls_libset_has(const struct xpc_tls_libset *set, dev_t dev, ino_t ino);

/* Remember (dev, ino): 1 when it was new, 0 if already there, -ENOMEM. */
int xpc_tls_libset_add(struct xpc_tls_libset *set, dev_t dev, ino_t ino);

/*
 * Examine every executable file mapping of pid and, once each, the
 * libssl.so* files of the standard library directories of its root; call
 * cb for each new object that xpc_tls_syms_usable(). Returns the number of
 * objects reported, or -errno when /proc/PID cannot be read (ENOENT: no
 * such process); a negative cb result stops the scan and is returned.
 */
int xpc_tls_libs_scan_pid(struct xpc_tls_libset *set, pid_t pid, xpc_tls_lib_cb cb, void *ctx);

/*
 * Examine, once per root (dev, inode), the libssl.so* files of the standard
 * library directories under root ("/proc/PID/root"): the daemon probes its
 * node's at start. Returns the number reported, or a negative cb result (the
 * root is then forgotten: the next scan of it tries again).
 */
int xpc_tls_libs_scan_root(struct xpc_tls_libset *set, const char *root, xpc_tls_lib_cb cb,
			   void *ctx);

/*
 * Examine one file (e.g. the command `record` is about to exec): 1 if it
 * was new and reported, 0 if not TLS, seen before or unreadable, <0 error.
 */
int xpc_tls_libs_scan_file(struct xpc_tls_libset *set, const char *path, xpc_tls_lib_cb cb,
			   void *ctx);

#endif /* XPERF_USERSPACE_TLS_LIBS_H */
