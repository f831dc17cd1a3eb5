/* SPDX-License-Identifier: MIT */
/*
 * version.h - the one version of xperf: `xperf --version`, `xperf-bpf --version`
 * and the OTLP instrumentation scope name it. The TurnTrace schema has its own
 * ("schema_version": "1.0", schema/README.md).
 */
#ifndef XPERF_LIB_VERSION_H
#define XPERF_LIB_VERSION_H

#define XP_VERSION "1.0.0"

#endif /* XPERF_LIB_VERSION_H */
