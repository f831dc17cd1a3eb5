// SPDX-License-Identifier: MIT
/*
 * collector_config.c - parse the collector's environment variables. Limits
 * come from CUPTI's advice (1-10 MiB buffers) widened both ways; numbers are
 * strict (no trailing garbage) so a typo is reported, not half-read.
 */
#include "gpu/collector_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

struct knob {
	const char *name;
	unsigned long def, min, max;
};

static const struct knob buffer_kb = {"XPERF_CUPTI_BUFFER_KB", 4096, 64, 262144};
static const struct knob max_buffers = {"XPERF_CUPTI_MAX_BUFFERS", 32, 2, 4096};
static const struct knob flush_ms = {"XPERF_CUPTI_FLUSH_MS", 1000, 0, 3600000};
static const struct knob enabled = {"XPERF_CUPTI", 1, 0, 1};
static const struct knob force = {"XPERF_CUPTI_FORCE", 0, 0, 1};

static int num(const struct knob *k, gp_getenv_fn get, unsigned long *out, char *err, size_t errlen)
{
	const char *s = get(k->name);
	char *end;

	*out = k->def;
	if (!s || !*s)
		return 0;
	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || *end || s[0] == '-' || *out < k->min || *out > k->max) {
		snprintf(err, errlen, "%s=%s: want an integer in %lu..%lu", k->name, s, k->min,
			 k->max);
		return -1;
	}
	return 0;
}

static int out_dir(struct gp_collector_config *c, gp_getenv_fn get, char *err, size_t errlen)
{
	const char *gpu = get("XPERF_GPU_DIR"), *trace = get("XPERF_TRACE_DIR");
	int n;

	if (gpu && *gpu)
		n = snprintf(c->out_dir, sizeof(c->out_dir), "%s", gpu);
	else if (trace && *trace)
		n = snprintf(c->out_dir, sizeof(c->out_dir), "%s/gpu", trace);
	else
		n = snprintf(c->out_dir, sizeof(c->out_dir), ".xperf/traces/gpu");
	if (n >= (int)sizeof(c->out_dir)) {
		snprintf(err, errlen, "XPERF_GPU_DIR: path longer than %zu bytes",
			 sizeof(c->out_dir) - 1);
		return -1;
	}
	return 0;
}

int gp_collector_config_load(struct gp_collector_config *c, gp_getenv_fn get, char *err,
			     size_t errlen)
{
	unsigned long kb, nbuf, ms, on, f;
	const char *lib = get("XPERF_CUPTI_LIB");

	if (num(&buffer_kb, get, &kb, err, errlen) || num(&max_buffers, get, &nbuf, err, errlen) ||
	    num(&flush_ms, get, &ms, err, errlen) || num(&enabled, get, &on, err, errlen) ||
	    num(&force, get, &f, err, errlen) || out_dir(c, get, err, errlen))
		return -1;
	c->buffer_bytes = kb * 1024;
	c->max_buffers = (unsigned)nbuf;
	c->flush_ms = (unsigned)ms;
	c->enabled = (int)on;
	c->force = (int)f;
	c->cupti_lib = lib && *lib ? lib : NULL;
	return 0;
}
