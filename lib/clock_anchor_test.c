/* SPDX-License-Identifier: MIT */
/*
 * clock_anchor_test.c - the anchor against the clocks read around it, the
 * boot id against /proc, and the boot id syntax.
 */
#include "lib/clock_anchor.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/test_check.h"

static uint64_t ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(void)
{
	struct xp_clock_anchor a, b;
	uint64_t m0 = ns(CLOCK_MONOTONIC), r0 = ns(CLOCK_REALTIME);
	char want[64] = "";
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	xp_clock_anchor_now(&a);
	xp_clock_anchor_now(&b);
	uint64_t m1 = ns(CLOCK_MONOTONIC), r1 = ns(CLOCK_REALTIME);

	CHECK(m0 <= a.monotonic_ns && a.monotonic_ns <= b.monotonic_ns && b.monotonic_ns <= m1,
	      "monotonic %llu not between the reads around it",
	      (unsigned long long)a.monotonic_ns);
	CHECK(r0 <= a.realtime_ns && a.realtime_ns <= r1, "realtime outside the reads around it");
	/* Both anchors map the same boot onto the wall clock: offsets agree to the read cost. */
	int64_t d = xp_clock_anchor_offset(&a) - xp_clock_anchor_offset(&b);

	CHECK(d > -1000000 && d < 1000000, "offsets of two anchors differ by %lld ns",
	      (long long)d);
	CHECK(f && fgets(want, sizeof(want), f), "cannot read the boot id");
	want[strcspn(want, "\n")] = '\0';
	CHECK(!strcmp(a.boot_id, want), "boot id %s, /proc says %s", a.boot_id, want);
	CHECK(xp_boot_id_valid("71367692-ae67-4dda-9a7a-6f405cfcf74b"), "a kernel boot id");
	CHECK(!xp_boot_id_valid("71367692-ae67-4dda-9a7a-6f405cfcf74"), "one char short");
	CHECK(!xp_boot_id_valid("71367692-ae67-4dda-9a7a-6f405cfcf74bb"), "one char long");
	CHECK(!xp_boot_id_valid("71367692ae67-4dda-9a7a-6f405cfcf74b0"), "dash misplaced");
	CHECK(!xp_boot_id_valid("71367692-AE67-4dda-9a7a-6f405cfcf74b"), "upper case");
	CHECK(!xp_boot_id_valid(""), "empty");
	if (f)
		fclose(f);
	return test_failures != 0;
}
