/* SPDX-License-Identifier: MIT */
/*
 * collector_config.h - the CUPTI collector's settings, from environment
 * variables (the only input an injected library gets). gpu/README.md lists
 * them; a bad value disables the collector with a message naming it.
 */
#ifndef XPERF_GPU_COLLECTOR_CONFIG_H
#define XPERF_GPU_COLLECTOR_CONFIG_H

#include <stddef.h>

struct gp_collector_config {
	char out_dir[4096]; /* $XPERF_GPU_DIR, else $XPERF_TRACE_DIR/gpu, else .xperf/traces/gpu */
	const char *cupti_lib; /* $XPERF_CUPTI_LIB or NULL (search the usual names) */
	size_t buffer_bytes;   /* $XPERF_CUPTI_BUFFER_KB x 1024; default 4 MiB */
	unsigned max_buffers;  /* $XPERF_CUPTI_MAX_BUFFERS in flight; default 32 (128 MiB) */
	unsigned flush_ms;     /* $XPERF_CUPTI_FLUSH_MS; default 1000; 0 = CUPTI decides */
	int enabled;	       /* $XPERF_CUPTI=0 turns the collector off */
	int force;	       /* $XPERF_CUPTI_FORCE=1: LD_PRELOAD init without CUDA loaded */
};

typedef const char *(*gp_getenv_fn)(const char *name);

/*
 * Fill c from the environment read through get (getenv in production).
 * Returns 0, or -1 with "NAME=value: why" in err on a bad value.
 */
int gp_collector_config_load(struct gp_collector_config *c, gp_getenv_fn get, char *err,
			     size_t errlen);

#endif /* XPERF_GPU_COLLECTOR_CONFIG_H */
