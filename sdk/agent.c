/* SPDX-License-Identifier: MIT */
/*
 * agent.c - the identity of the agent process, written in every turn's
 * "agent" object: name and model from xperf_init, then pid, comm, start time
 * (boot-relative ns, from /proc/self/stat: with the pid it identifies the
 * process across pid reuse) and the container id when the cgroup path has one.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sdk/internal.h"

static void read_comm(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/comm", "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* Field 22 of /proc/self/stat, in clock ticks since boot; 0 when unknown. */
static uint64_t start_time_ns(void)
{
	char line[1024], *p;
	unsigned long long ticks = 0;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/self/stat", "re");

	if (!f)
		return 0;
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	/* p is at the ')' ending field 2 (comm, which may hold spaces); starttime is field 22. */
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu", &ticks) != 1 || hz <= 0)
		return 0;
	return (uint64_t)ticks * (1000000000ull / (uint64_t)hz);
}

/* A 64-hex-digit run in /proc/self/cgroup (docker, containerd, podman). */
static void read_container_id(char *buf, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/self/cgroup", "re");

	buf[0] = '\0';
	if (!f)
		return;
	while (!buf[0] && fgets(line, sizeof(line), f)) {
		for (char *p = line; *p && !buf[0]; p++) {
			size_t n = 0;

			while (isxdigit((unsigned char)p[n]) && !isupper((unsigned char)p[n]))
				n++;
			if (n == 64 && len > 64)
				snprintf(buf, len, "%.64s", p);
			p += n ? n - 1 : 0;
		}
	}
	fclose(f);
}

void sd_agent_collect(struct sd_agent *ag, const char *name, const char *model)
{
	snprintf(ag->name, sizeof(ag->name), "%s", name);
	snprintf(ag->model, sizeof(ag->model), "%s", model ? model : "");
	ag->pid = getpid();
	read_comm(ag->comm, sizeof(ag->comm));
	ag->start_time_ns = start_time_ns();
	read_container_id(ag->container_id, sizeof(ag->container_id));
}
