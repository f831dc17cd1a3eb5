/* SPDX-License-Identifier: MIT */
/*
 * clock_anchor.c - the wall-clock anchor and boot id of TurnTrace files.
 */
#include "lib/clock_anchor.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static char boot_id[XP_BOOT_ID_LEN + 1];
static pthread_once_t boot_id_once = PTHREAD_ONCE_INIT;

static void read_boot_id(void)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	char line[64] = "";

	if (!f)
		return;
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (xp_boot_id_valid(line))
			memcpy(boot_id, line, sizeof(boot_id));
	}
	fclose(f);
}

uint64_t xp_now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double xp_now_s(void)
{
	return xp_now_ns(CLOCK_MONOTONIC) / 1e9;
}

void xp_clock_anchor_now(struct xp_clock_anchor *a)
{
	uint64_t before = xp_now_ns(CLOCK_MONOTONIC);

	a->realtime_ns = xp_now_ns(CLOCK_REALTIME);
	a->monotonic_ns = before + (xp_now_ns(CLOCK_MONOTONIC) - before) / 2;
	pthread_once(&boot_id_once, read_boot_id);
	memcpy(a->boot_id, boot_id, sizeof(a->boot_id));
}

int64_t xp_clock_anchor_offset(const struct xp_clock_anchor *a)
{
	return (int64_t)(a->realtime_ns - a->monotonic_ns);
}

int xp_boot_id_valid(const char *s)
{
	for (int i = 0; i < XP_BOOT_ID_LEN; i++) {
		int dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !strchr("0123456789abcdef", s[i]) || !s[i])
			return 0;
	}
	return s[XP_BOOT_ID_LEN] == '\0';
}
