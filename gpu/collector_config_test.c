// SPDX-License-Identifier: MIT
/*
 * collector_config_test.c - the collector's environment: defaults, each
 * variable, the output directory fallbacks, and rejected values with the
 * message that names them.
 */
#include "gpu/collector_config.h"
#include "lib/test_check.h"

#include <stdio.h>
#include <string.h>

static const char *const *fake_env;

static const char *lookup(const char *name)
{
	for (const char *const *e = fake_env; e && *e; e += 2)
		if (!strcmp(e[0], name))
			return e[1];
	return NULL;
}

static int load(const char *const *envp, struct gp_collector_config *c, char *err)
{
	fake_env = envp;
	memset(c, 0, sizeof(*c));
	return gp_collector_config_load(c, lookup, err, 256);
}

int main(void)
{
	struct gp_collector_config c;
	char err[256] = "";
	const char *const none[] = {NULL};
	const char *const all[] = {"XPERF_CUPTI_BUFFER_KB",
				   "1024",
				   "XPERF_CUPTI_MAX_BUFFERS",
				   "8",
				   "XPERF_CUPTI_FLUSH_MS",
				   "0",
				   "XPERF_CUPTI_LIB",
				   "/opt/libcupti.so",
				   "XPERF_TRACE_DIR",
				   "/tmp/t",
				   "XPERF_CUPTI_FORCE",
				   "1",
				   NULL};
	const char *const gpu_dir[] = {
		"XPERF_TRACE_DIR", "/tmp/t", "XPERF_GPU_DIR", "/run/g", "XPERF_CUPTI", "0", NULL};
	const char *const bad[][3] = {
		{"XPERF_CUPTI_BUFFER_KB", "4k",
		 "XPERF_CUPTI_BUFFER_KB=4k: want an integer in 64..262144"},
		{"XPERF_CUPTI_BUFFER_KB", "32",
		 "XPERF_CUPTI_BUFFER_KB=32: want an integer in 64..262144"},
		{"XPERF_CUPTI_MAX_BUFFERS", "-3",
		 "XPERF_CUPTI_MAX_BUFFERS=-3: want an integer in 2..4096"},
		{"XPERF_CUPTI", "yes", "XPERF_CUPTI=yes: want an integer in 0..1"},
		{"XPERF_CUPTI_FORCE", "2", "XPERF_CUPTI_FORCE=2: want an integer in 0..1"},
	};

	CHECK(load(none, &c, err) == 0, "%s", err);
	CHECK(c.buffer_bytes == 4u << 20 && c.max_buffers == 32 && c.flush_ms == 1000 &&
		      c.enabled && !c.force && !c.cupti_lib,
	      "defaults");
	CHECK(!strcmp(c.out_dir, ".xperf/traces/gpu"), "default dir %s", c.out_dir);
	CHECK(load(all, &c, err) == 0, "%s", err);
	CHECK(c.buffer_bytes == 1u << 20 && c.max_buffers == 8 && c.flush_ms == 0 && c.force &&
		      !strcmp(c.cupti_lib, "/opt/libcupti.so"),
	      "all set");
	CHECK(!strcmp(c.out_dir, "/tmp/t/gpu"), "trace dir %s", c.out_dir);
	CHECK(load(gpu_dir, &c, err) == 0 && !strcmp(c.out_dir, "/run/g") && !c.enabled, "gpu dir");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *const envp[] = {bad[i][0], bad[i][1], NULL};

		CHECK(load(envp, &c, err) == -1 && !strcmp(err, bad[i][2]), "bad %zu: '%s'", i,
		      err);
	}
	return test_failures != 0;
}
