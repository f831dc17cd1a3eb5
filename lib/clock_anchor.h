/* SPDX-License-Identifier: MIT */
/*
 * clock_anchor.h - where CLOCK_MONOTONIC stood on the wall clock, and on which boot.
 *
 * TurnTrace times are CLOCK_MONOTONIC nanoseconds: they restart at every boot and
 * mean nothing on another machine. Every turn file carries one anchor, the
 * CLOCK_REALTIME read at a CLOCK_MONOTONIC instant (the middle of two monotonic
 * reads around it) and the kernel's boot id, so an exporter can date each stamp
 * (realtime_ns + t - monotonic_ns) wherever and whenever the file is read.
 */
#ifndef XPERF_LIB_CLOCK_ANCHOR_H
#define XPERF_LIB_CLOCK_ANCHOR_H

#include <stdint.h>
#include <time.h>

#define XP_BOOT_ID_LEN 36 /* "71367692-ae67-4dda-9a7a-6f405cfcf74b" */

struct xp_clock_anchor {
	uint64_t monotonic_ns;
	uint64_t realtime_ns;
	char boot_id[XP_BOOT_ID_LEN + 1]; /* "" when /proc/sys/kernel/random/boot_id is unreadable */
};

/* What clock reads now, in ns (CLOCK_MONOTONIC: bpf_ktime_get_ns's clock, every stamp's). */
uint64_t xp_now_ns(clockid_t clock);

/* CLOCK_MONOTONIC in seconds, for timeouts and durations. */
double xp_now_s(void);

/* Take the anchor now. The boot id is read once per process. */
void xp_clock_anchor_now(struct xp_clock_anchor *a);

/* realtime_ns - monotonic_ns: add it to a monotonic stamp of that boot to get Unix-epoch ns. */
int64_t xp_clock_anchor_offset(const struct xp_clock_anchor *a);

/* 1 when s is a boot id as the kernel prints it (36 chars, lowercase hex and dashes 8-4-4-4-12). */
int xp_boot_id_valid(const char *s);

#endif /* XPERF_LIB_CLOCK_ANCHOR_H */
