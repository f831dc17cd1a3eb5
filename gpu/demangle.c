// SPDX-License-Identifier: MIT
/*
 * demangle.c - C wrapper over the C++ ABI demangler. libstdc++ is linked
 * (every CUDA process has it loaded already), so no C++ is compiled here.
 */
#include "gpu/demangle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* From the Itanium C++ ABI, implemented by libstdc++ (cxxabi.h). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* s into out, a cut one ending in "..." */
static void copy_cut(const char *s, char *out, size_t outlen)
{
	if ((size_t)snprintf(out, outlen, "%s", s) >= outlen && outlen > 4)
		memcpy(out + outlen - 4, "...", 3);
}

void gp_demangle(const char *name, char *out, size_t outlen)
{
	char *d = NULL;
	int status = -1;

	if (!outlen)
		return;
	if (!name) {
		copy_cut("?", out, outlen);
		return;
	}
	if (!strncmp(name, "_Z", 2))
		d = __cxa_demangle(name, NULL, NULL, &status);
	copy_cut(status == 0 && d ? d : name, out, outlen);
	free(d);
}
