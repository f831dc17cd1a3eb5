/* SPDX-License-Identifier: MIT */
/* sink.c - what every sink shares (sink.h). */
#include "userspace/run/sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ID_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"
#define COMM_MAX 15 /* TASK_COMM_LEN - 1: exec keeps this much of the file name */

const char *xpb_gpu_dir(const char *out_dir, char *buf, size_t len)
{
	const char *env = getenv("XPERF_GPU_DIR");

	if (env && *env)
		snprintf(buf, len, "%s", env);
	else
		snprintf(buf, len, "%s/gpu", out_dir ? out_dir : XPB_TRACE_DIR_DEFAULT);
	return buf;
}

static void read_comm(pid_t root, char *const *command, char comm[COMM_MAX + 1])
{
	const char *base = command ? strrchr(command[0], '/') : NULL;
	char path[64];
	FILE *f;

	if (command) {
		snprintf(comm, COMM_MAX + 1, "%s", base ? base + 1 : command[0]);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)root);
	f = fopen(path, "r");
	if (f) {
		if (fgets(comm, COMM_MAX + 1, f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
}

const char *xpb_session_id(pid_t root, char *const *command, char *buf)
{
	const char *env = getenv("XPERF_SESSION_ID");
	char comm[COMM_MAX + 1] = "agent", stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	if (env && *env && strlen(env) < 128 && strspn(env, ID_CHARS) == strlen(env)) {
		snprintf(buf, XPB_SESSION_ID_MAX, "%s", env);
		return buf;
	}
	read_comm(root, command, comm);
	for (char *c = comm; *c; c++)
		if (!strchr(ID_CHARS, *c))
			*c = '_';
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", gmtime_r(&now, &tm));
	snprintf(buf, XPB_SESSION_ID_MAX, "%s-%d-%s", comm[0] ? comm : "agent", (int)root, stamp);
	return buf;
}
