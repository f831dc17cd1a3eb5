/* SPDX-License-Identifier: MIT */
/* env.c - see env.h. Every probe has a fallback value: nothing here fails. */
#include "rubric/env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* First line of a small file, newline stripped; `fallback` when unreadable. */
static void read_line(const char *path, char *out, size_t cap, const char *fallback)
{
	FILE *f = fopen(path, "r");
	int ok = f && fgets(out, (int)cap, f);

	if (f)
		fclose(f);
	if (ok)
		out[strcspn(out, "\n")] = '\0';
	else
		snprintf(out, cap, "%s", fallback);
}

static void cpu_model(char *out, size_t cap)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(out, cap, "unknown");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) || !colon)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(out, cap, "%s", colon + 2 <= line + strlen(line) ? colon + 2 : "");
		break;
	}
	if (f)
		fclose(f);
}

int rb_which(const char *prog, char *out, size_t cap)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		size_t n = strcspn(path, ":");
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog) < (int)sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return out && snprintf(out, cap, "%s", buf) >= (int)cap ? -1 : 0;
		path += n + (path[n] == ':');
	}
	return -1;
}

int rb_on_path(const char *prog)
{
	return rb_which(prog, NULL, 0) == 0;
}

static void timestamps(struct rb_env *e)
{
	struct timeval tv;
	struct tm tm;
	char base[24];

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(e->timestamp_utc, sizeof(e->timestamp_utc), "%s+00:00", base);
	snprintf(e->generated_at, sizeof(e->generated_at), "%s.%06ld+00:00", base,
		 (long)tv.tv_usec);
	strftime(e->generated_human, sizeof(e->generated_human), "%Y-%m-%d %H:%M:%S UTC", &tm);
}

void rb_env_probe(struct rb_env *e)
{
	struct utsname u;
	struct stat st;
	char buf[64];
	double load[1];

	memset(e, 0, sizeof(*e));
	cpu_model(e->cpu_model, sizeof(e->cpu_model));
	if (uname(&u) == 0)
		snprintf(e->kernel, sizeof(e->kernel), "%s", u.release);
	read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", e->governor,
		  sizeof(e->governor), "unknown");
	read_line("/sys/devices/system/cpu/smt/control", e->smt, sizeof(e->smt), "unknown");
	e->load_avg_1m = getloadavg(load, 1) == 1 ? load[0] : 0;
	read_line("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf), "99");
	e->perf_paranoid = atoi(buf);
	e->pmu = stat("/sys/bus/event_source/devices/cpu", &st) == 0;
	e->valgrind = rb_on_path("valgrind");
	e->ram_mb =
		(long)((double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE) / 1048576.0);
	timestamps(e);
}
