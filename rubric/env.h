/* SPDX-License-Identifier: MIT */
/*
 * env.h - the machine a run was measured on: prerequisites (what can be
 * measured here) and the environment fingerprint that makes two runs
 * comparable (same CPU model, kernel, governor, SMT).
 */
#ifndef XPERF_RUBRIC_ENV_H
#define XPERF_RUBRIC_ENV_H

#include <stddef.h>

struct rb_env {
	char cpu_model[128];
	char kernel[128];
	char governor[32]; /* "unknown" when cpufreq is absent */
	char smt[16];	   /* "on", "off", "unknown" */
	double load_avg_1m;
	int perf_paranoid; /* 99 when unreadable (as the original) */
	int pmu;	   /* 1: /sys/bus/event_source/devices/cpu exists */
	int valgrind;	   /* 1: on PATH */
	long ram_mb;
	char timestamp_utc[32];	  /* 2026-12-02T18:00:00+00:00 */
	char generated_at[40];	  /* 2026-12-02T18:00:00.123456+00:00 */
	char generated_human[32]; /* 2026-12-02 18:00:00 UTC */
};

/* The first executable `prog` of $PATH into out (when not NULL); 0 or -1. */
int rb_which(const char *prog, char *out, size_t cap);
/* 1 when an executable `prog` is in a $PATH directory. */
int rb_on_path(const char *prog);

/* Probe the machine (cheap: a few small /proc and /sys reads). */
void rb_env_probe(struct rb_env *e);

#endif /* XPERF_RUBRIC_ENV_H */
