// SPDX-License-Identifier: MIT
/*
 * tls_libs_test.c - /proc/PID/maps parsing, SSL_* export detection on the
 * real libssl.so.3 and node of this machine (ground truth: nm -D), and
 * once-per-inode scanning of this very process.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/test_check.h"
#include "userspace/tls_libs.h"

static int found(void *ctx, const char *path, unsigned int syms, const struct loc_result *loc)
{
	(void)path;
	(void)loc;
	*(unsigned int *)ctx |= syms;
	return 0;
}

int main(void)
{
	struct xpc_map_ent e;
	struct xpc_tls_libset *set = xpc_tls_libset_new(NULL);
	unsigned int syms = 0;
	struct stat st;
	int fd;

	CHECK(!xpc_maps_parse_line("7f1c2a000000-7f1c2a05f000 r-xp 00020000 08:01 1311542   "
				   "       /usr/lib/x86_64-linux-gnu/libssl.so.3", &e));
	CHECK(e.start == 0x7f1c2a000000UL && e.end == 0x7f1c2a05f000UL && e.offset == 0x20000);
	CHECK(e.dev_major == 8 && e.dev_minor == 1 && e.inode == 1311542);
	CHECK(!strcmp(e.perms, "r-xp") && !strcmp(e.path, "/usr/lib/x86_64-linux-gnu/libssl.so.3"));
	CHECK(!xpc_maps_parse_line("7ffd0000-7ffd1000 rw-p 00000000 00:00 0", &e) && !e.path);
	CHECK(xpc_maps_parse_line("garbage", &e) == -1);
	CHECK(xpc_maps_parse_line("2000-1000 r-xp 0 0:0 0 /x", &e) == -1);

	fd = open("/lib/x86_64-linux-gnu/libssl.so.3", O_RDONLY);
	CHECK(fd >= 0);
	CHECK(xpc_tls_elf_ssl_syms_fd(fd) ==
	      (XPC_TLS_SYM_WRITE | XPC_TLS_SYM_READ | XPC_TLS_SYM_WRITE_EX | XPC_TLS_SYM_READ_EX |
	       XPC_TLS_SYM_FREE));
	close(fd);
	fd = open("/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY);
	CHECK(fd >= 0 && xpc_tls_elf_ssl_syms_fd(fd) == 0);
	close(fd);
	fd = open("/usr/bin/node", O_RDONLY);
	if (fd >= 0)	/* node links OpenSSL statically and exports SSL_* */
		CHECK(xpc_tls_syms_usable(xpc_tls_elf_ssl_syms_fd(fd)));
	close(fd);
	/* A truncated ELF header. */
	fd = memfd_create("elf", MFD_CLOEXEC);
	CHECK(fd >= 0 && write(fd, ELFMAG, SELFMAG) == SELFMAG && xpc_tls_elf_ssl_syms_fd(fd) == 0);
	close(fd);
	/* A static build with only the _ex pair (ANOLISA #1513) is usable. */
	fd = open("userspace/libssl_ex_only.so", O_RDONLY);
	CHECK(fd >= 0 &&
	      xpc_tls_elf_ssl_syms_fd(fd) == (XPC_TLS_SYM_WRITE_EX | XPC_TLS_SYM_READ_EX));
	close(fd);
	CHECK(xpc_tls_syms_usable(XPC_TLS_SYM_WRITE_EX | XPC_TLS_SYM_READ_EX));
	CHECK(!xpc_tls_syms_usable(XPC_TLS_SYM_WRITE | XPC_TLS_SYM_WRITE_EX | XPC_TLS_SYM_FREE));

	/* This process maps no libssl, but its root's lib dirs hold one. */
	CHECK(set != NULL);
	CHECK(xpc_tls_libs_scan_pid(set, getpid(), found, &syms) >= 1);
	CHECK(xpc_tls_syms_usable(syms));
	syms = 0;
	CHECK(xpc_tls_libs_scan_pid(set, getpid(), found, &syms) == 0 && syms == 0);
	CHECK(xpc_tls_libs_scan_file(set, "/lib/x86_64-linux-gnu/libssl.so.3", found, &syms) == 0);
	/* What a scan examined is known by (dev, inode), as XP_EV_MAP_EXEC names it. */
	CHECK(!stat("/lib/x86_64-linux-gnu/libssl.so.3", &st) &&
	      xpc_tls_libset_has(set, st.st_dev, st.st_ino));
	CHECK(!stat("/etc/hostname", &st) && !xpc_tls_libset_has(set, st.st_dev, st.st_ino));
	CHECK(xpc_tls_libs_scan_pid(set, 0x7ffffff0, found, &syms) == -ENOENT);
	xpc_tls_libset_free(set);
	return test_failures != 0;
}
