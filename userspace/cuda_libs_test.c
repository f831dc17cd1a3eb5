// SPDX-License-Identifier: MIT
/*
 * cuda_libs_test.c - CUDA library discovery on this very process: a
 * $XPERF_CUDA_PATH/lib64 with a runtime, its symlink, the driver and files
 * that are not CUDA libraries, plus a renamed runtime this process maps
 * executable; each library is reported once, through /proc/PID/root, and a
 * second scan reports nothing new.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "userspace/cuda_libs.h"
#include "userspace/testing/check.h"

struct seen {
	const char *top;
	int runtime, driver, mapped, other;
};

static int report(void *ctx, const char *path)
{
	struct seen *s = ctx;
	const char *in = strstr(path, s->top);

	if (!in) /* the machine's own CUDA libraries */
		return 0;
	if (strncmp(path, "/proc/", 6) || !strstr(path, "/root/"))
		s->other++;
	else if (strstr(in, "/lib64/libcudart.so"))
		s->runtime++;
	else if (strstr(in, "/lib64/libcuda.so.1"))
		s->driver++;
	else if (strstr(in, "/wheel/libcudart-1a2b.so.12"))
		s->mapped++;
	else
		s->other++;
	return 0;
}

static void make_file(const char *top, const char *name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", top, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, "\177ELF", 4) == 4);
	close(fd);
}

int main(void)
{
	char top[] = "/tmp/cuda_libs_test.XXXXXX", path[512], cmd[600];
	struct cuda_libset *set = cuda_libset_new();
	struct seen s = { .top = top };
	void *map;
	int fd;

	CHECK(set && mkdtemp(top));
	snprintf(path, sizeof(path), "%s/lib64", top);
	CHECK(mkdir(path, 0700) == 0);
	snprintf(path, sizeof(path), "%s/wheel", top);
	CHECK(mkdir(path, 0700) == 0);
	make_file(top, "lib64/libcudart.so.99.1");
	make_file(top, "lib64/libcuda.so.1");
	make_file(top, "lib64/libcudart_static.a");
	make_file(top, "lib64/libcudnn.so.9");
	make_file(top, "wheel/libcudart-1a2b.so.12");
	snprintf(path, sizeof(path), "%s/lib64/libcudart.so", top);
	CHECK(symlink("libcudart.so.99.1", path) == 0);
	setenv("XPERF_CUDA_PATH", top, 1);

	snprintf(path, sizeof(path), "%s/wheel/libcudart-1a2b.so.12", top);
	fd = open(path, O_RDONLY);
	map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	CHECK(map != MAP_FAILED);

	CHECK(cuda_libs_scan_pid(set, getpid(), report, &s) >= 3);
	CHECK(s.runtime == 1 && s.driver == 1 && s.mapped == 1 && s.other == 0);
	memset(&s, 0, sizeof(s));
	s.top = top;
	CHECK(cuda_libs_scan_pid(set, getpid(), report, &s) == 0);
	CHECK(s.runtime + s.driver + s.mapped + s.other == 0);
	CHECK(cuda_libs_scan_pid(set, 0x3fffffff, report, &s) == -ENOENT);

	munmap(map, 4096);
	close(fd);
	cuda_libset_free(set);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	CHECK(system(cmd) == 0);
	return CHECK_DONE();
}
