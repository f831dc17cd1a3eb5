// SPDX-License-Identifier: MIT
/*
 * cupti_loader.c - dlopen/dlsym of libcupti. Symbols are looked up by name
 * from a table, so adding an entry point is one line.
 */
#include "gpu/cupti_loader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define STR2(x) #x
#define STR(x)	STR2(x)

#if CUPTI_API_VERSION >= 130000
#define CUPTI_MAJOR (CUPTI_API_VERSION / 10000)
#else
#define CUPTI_MAJOR 12
#endif

#define SYM(fn)                                                                                    \
	{                                                                                          \
		"cupti" #fn, offsetof(struct gp_cupti_api, fn), 0                                  \
	}

/* optional: older CUPTI lacks it; the collector then works without it. */
static const struct {
	const char *name;
	size_t off;
	int optional;
} syms[] = {
	SYM(Subscribe),
	SYM(Unsubscribe),
	SYM(GetVersion),
	SYM(GetResultString),
	{"cuptiActivityRegisterTimestampCallback",
	 offsetof(struct gp_cupti_api, ActivityRegisterTimestampCallback), 1},
	SYM(ActivityRegisterCallbacks),
	SYM(ActivityEnable),
	SYM(ActivityFlushAll),
	SYM(ActivityFlushPeriod),
	SYM(ActivityGetNextRecord),
	SYM(ActivityGetNumDroppedRecords),
};

static void *open_first(const char *path, char *err, size_t errlen)
{
	static const char *const names[] = {
		("libcupti.so." STR(CUPTI_MAJOR)),
		"libcupti.so",
		"/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
		"/usr/local/cuda/lib64/libcupti.so",
	};
	void *h;

	if (path) {
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h)
			snprintf(err, errlen, "%s", dlerror());
		return h;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (h)
			return h;
	}
	snprintf(err, errlen, "libcupti.so." STR(CUPTI_MAJOR) " not found (%s)", dlerror());
	return NULL;
}

int gp_cupti_load(struct gp_cupti_api *api, const char *path, char *err, size_t errlen)
{
	memset(api, 0, sizeof(*api));
	api->handle = open_first(path, err, errlen);
	if (!api->handle)
		return -1;
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *fn = dlsym(api->handle, syms[i].name);

		if (!fn && syms[i].optional)
			continue;
		if (!fn) {
			snprintf(err, errlen, "libcupti lacks %s", syms[i].name);
			dlclose(api->handle);
			memset(api, 0, sizeof(*api));
			return -1;
		}
		memcpy((char *)api + syms[i].off, &fn, sizeof(fn));
	}
	return 0;
}

const char *gp_cupti_strerror(const struct gp_cupti_api *api, CUptiResult rc, char *buf, size_t len)
{
	const char *s = NULL;

	if (api->GetResultString && api->GetResultString(rc, &s) == CUPTI_SUCCESS && s)
		return s;
	snprintf(buf, len, "CUPTI error %d", (int)rc);
	return buf;
}
