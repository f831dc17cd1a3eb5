// SPDX-License-Identifier: MIT
/*
 * cuda_libs_test.c - CUDA library discovery on this very process: it maps
 * a wheel's renamed runtime (executable), a driver (read-only: any mapping
 * counts) and a library that is not CUDA; a runtime it does not map is not
 * reported. Each CUDA mapping comes through /proc/PID/root with the file's
 * own (dev, inode); the other file lands in the shared `plain` set.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/test_check.h"
#include "userspace/cuda_libs.h"

struct seen {
	const char *top;
	int runtime, driver, other;
};

static int report(void *ctx, const char *path, dev_t dev, ino_t ino)
{
	struct seen *s = ctx;
	const char *in = strstr(path, s->top);
	struct stat st;

	if (!in) /* the machine's own CUDA libraries */
		return 0;
	if (strncmp(path, "/proc/", 6) || !strstr(path, "/root/") || stat(in, &st) ||
	    st.st_dev != dev || st.st_ino != ino)
		s->other++;
	else if (!strcmp(in + strlen(s->top), "/wheel/libcudart-1a2b.so.12"))
		s->runtime++;
	else if (!strcmp(in + strlen(s->top), "/lib64/libcuda.so.1"))
		s->driver++;
	else
		s->other++;
	return 1;
}

/* Create top/name and map it with prot; returns the file's inode. */
static ino_t map_file(const char *top, const char *name, int prot)
{
	char path[512];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", top, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && ftruncate(fd, 4096) == 0 && fstat(fd, &st) == 0);
	if (prot)
		CHECK(mmap(NULL, 4096, prot, MAP_PRIVATE, fd, 0) != MAP_FAILED);
	close(fd);
	return st.st_ino;
}

int main(void)
{
	char top[] = "/tmp/cuda_libs_test.XXXXXX", path[512], cmd[600];
	struct xpc_tls_libset *plain = xpc_tls_libset_new(NULL);
	struct seen s = { .top = top };
	struct stat st;
	ino_t cudnn;

	CHECK(plain && mkdtemp(top));
	snprintf(path, sizeof(path), "%s/lib64", top);
	CHECK(mkdir(path, 0700) == 0);
	snprintf(path, sizeof(path), "%s/wheel", top);
	CHECK(mkdir(path, 0700) == 0);
	map_file(top, "wheel/libcudart-1a2b.so.12", PROT_READ | PROT_EXEC);
	map_file(top, "lib64/libcuda.so.1", PROT_READ);
	cudnn = map_file(top, "lib64/libcudnn.so.9", PROT_READ | PROT_EXEC);
	map_file(top, "lib64/libcudart.so.99.1", 0);

	CHECK(xpc_cuda_libs_scan_pid(plain, getpid(), report, &s) >= 2);
	CHECK(s.runtime == 1 && s.driver == 1 && s.other == 0);
	CHECK(!stat(top, &st) && xpc_tls_libset_has(plain, st.st_dev, cudnn));
	CHECK(xpc_cuda_libs_scan_pid(plain, 0x3fffffff, report, &s) == -ENOENT);

	xpc_tls_libset_free(plain);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	CHECK(system(cmd) == 0);
	return test_failures != 0;
}
