/* SPDX-License-Identifier: MIT */
/*
 * demangle.h - readable kernel names: Itanium C++ names (_Z...) through
 * libstdc++'s __cxa_demangle, anything else copied as is.
 */
#ifndef XPERF_GPU_DEMANGLE_H
#define XPERF_GPU_DEMANGLE_H

#include <stddef.h>

/*
 * Write the demangled form of `name` (or `name` itself when it is not a
 * mangled C++ name or does not demangle) into out[0..outlen), always
 * NUL-terminated; a result longer than outlen - 1 ends in "...".
 * NULL name gives "?".
 */
void gp_demangle(const char *name, char *out, size_t outlen);

#endif /* XPERF_GPU_DEMANGLE_H */
