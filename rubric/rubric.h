/* SPDX-License-Identifier: MIT */
/*
 * rubric.h - the data model of `xperf rubric`, shared by its stages.
 *
 * Data flows one way: options -> measurements (timed runs with perf_event
 * counters, Valgrind profiles) -> scores (seven dimensions) -> regressions
 * (baseline, ledger) -> outputs (report, summary, findings, ledger line).
 * docs/rubric.md describes behaviour, thresholds and each difference from
 * the original perf-benchmark pipeline.
 */
#ifndef XPERF_RUBRIC_RUBRIC_H
#define XPERF_RUBRIC_RUBRIC_H

#include <stddef.h>
#include <stdint.h>

#include "lib/counters.h"

#define XP_RB_MAX_SIZES 16
#define XP_RB_MAX_REPS 50
#define XP_RB_WHY 160 /* a reason, one line */

enum rb_tier { XP_RB_FAST, XP_RB_MEDIUM, XP_RB_DEEP, XP_RB_ASM };
enum rb_cx { XP_CX_LINEAR, XP_CX_NLOGN, XP_CX_QUADRATIC, XP_CX_COUNT };

extern const char *const rb_tier_names[4];	      /* "fast", ... */
extern const char *const rb_cx_names[XP_CX_COUNT]; /* "linear", "nlogn", "quadratic" */

struct rb_opts {
	const char *target; /* command template with {SIZE}, or NULL */
	const char *binary; /* executable, size appended as argv[1], or NULL */
	long sizes[XP_RB_MAX_SIZES];
	int nsizes;
	enum rb_tier tier;
	enum rb_cx expected;
	double max_cv;	    /* percent */
	int reps;	    /* timed repetitions per size, after one warm-up */
	long valgrind_size; /* N for Valgrind runs and ratio sub-checks */
	double timeout_s;   /* per run (timed and Valgrind); 0: no limit */
	const char *out_dir, *root, *baseline, *ledger, *findings_out;
	const char *source_prefix; /* cachegrind rows kept: files starting with it; NULL: all */
	const char *attach; /* command started on each scored run, {PID} {SIZE} {RUN}; or NULL */
	double attach_wait_s; /* --attach-wait: fixed delay instead of readiness detection; 0 */
};

/* One timed run of the target. */
struct rb_run {
	double wall_s;	/* CLOCK_MONOTONIC, exec to reap */
	long maxrss_kb; /* peak RSS (runner.c) */
	int rss_exact;	/* maxrss_kb is the program's VmHWM at exit, not wait4's ru_maxrss */
	struct xp_counter_values ctr;
	char attach_err[XP_RB_WHY]; /* why the --attach command failed; "" */
};

/* What the summary keeps of each scored run (runs_by_size). */
struct rb_run_rec {
	long maxrss_kb;
	uint64_t mask;		    /* bit c: value[c] is valid */
	double value[XP_CTR_COUNT]; /* scaled counter values */
};

/* All timed runs of one size, and their statistics. */
struct rb_size {
	long size;
	int nruns;
	double wall[XP_RB_MAX_REPS];
	struct rb_run_rec rec[XP_RB_MAX_REPS]; /* the same runs, in order */
	double wall_median, wall_mean, wall_cv; /* cv = 100 * sample sd / mean */
	long maxrss_kb;				/* max over runs */
	int rss_exact;				/* every run's was (rb_run.rss_exact) */
	struct xp_counter_values ctr;		/* per-counter median over runs */
};

/* Cachegrind event columns this scorer reads, in its own order. */
enum rb_cg_ev { CG_IR, CG_DR, CG_DW, CG_D1MR, CG_D1MW, CG_DLMR, CG_DLMW, CG_BC, CG_BCM, CG_NEV };
extern const char *const rb_cg_ev_names[CG_NEV];

/* One cachegrind row: a function within one source file (fl=), self costs. */
struct rb_cg_fn {
	char name[128];
	char file[160];
	uint64_t ev[CG_NEV];
};

/* A parsed cachegrind.out: totals and per-function self costs. */
struct rb_cg_profile {
	uint64_t total[CG_NEV];
	uint64_t have;	     /* bit e: the file had event e */
	struct rb_cg_fn *fn; /* heap, nfn entries */
	size_t nfn;
	int filtered;           /* 1: fn holds only the --source-prefix rows ... */
	uint64_t sel[CG_NEV];   /* ... and sel their sums (cache rates are taken on them) */
};

/* A parsed callgrind.out: call edges against N. */
struct rb_cl_profile {
	uint64_t total_calls; /* sum of calls= */
	uint64_t mult_paths;  /* calls= lines with a count above N */
};

/* A parsed massif.out: heap series. */
struct rb_ms_profile {
	uint64_t peak_bytes; /* max mem_heap_B */
	int nsnap;
	int local_maxima; /* strict interior maxima of mem_heap_B */
};

/* One Valgrind stage: ran and parsed, or why not. */
struct rb_stage {
	int ran;	     /* 1 when the profile below is valid */
	char why[XP_RB_WHY]; /* when not */
	char artifact[512];  /* raw output file */
};

struct rb_meas {
	struct rb_size size[XP_RB_MAX_SIZES];
	int nsizes;
	char timing_error[XP_RB_WHY]; /* target failed: "" when all runs exited 0 */
	int attach_runs, attach_failed; /* --attach: runs it was started on, and failed on */
	char attach_error[XP_RB_WHY];	/* the first failure: "size S run R: why" */
	struct rb_stage cg_stage, cl_stage, ms_stage;
	struct rb_stage asm_stage; /* tier asm: objdump -dS of the executable, not scored */
	struct rb_cg_profile cg;
	struct rb_cl_profile cl;
	struct rb_ms_profile ms;
};

/* Score of one dimension or sub-check. */
enum rb_tierv { T_NA, T_NOISE, T_FAIL, T_WARN, T_PASS };
extern const char *const rb_tierv_names[5]; /* "N/A", "N/A (noise)", "FAIL", "WARN", "PASS" */

enum rb_dim { D_SCALING, D_WALL, D_CPU, D_L1, D_LL, D_BRANCH, D_MEMORY, D_COUNT };
extern const char *const rb_dim_names[D_COUNT]; /* "Algorithmic Scaling", ... */

enum rb_sub {
	S_EXPONENT,
	S_CALL_AMP,
	S_DATA_REUSE,
	S_WRITE_AMP,
	S_CHURN,
	S_MULT_PATHS,
	S_COUNT
};
extern const char *const rb_sub_names[S_COUNT]; /* "complexity_exponent", ... */
extern const char *const rb_sub_keys[S_COUNT];  /* "k", "ratio", ..., "path_count" */

/* PASS/WARN bounds of one threshold: PASS if v <= pass, WARN if v <= warn. */
struct rb_bounds {
	double pass, warn;
};

/* A named measured value behind a score. */
struct rb_metric {
	const char *key; /* payload key: "cv", "worst_pct", "IPC", ... */
	double value; /* rounded as the output shows it */
	double pass;  /* its PASS bound (the findings' threshold) */
};

#define XP_RB_MAX_METRICS 6

struct rb_score {
	enum rb_tierv tier;
	int score; /* 4, 2, 0; -1 for N/A */
	struct rb_metric m[XP_RB_MAX_METRICS];
	int nm;
	const char *source;   /* "perf_event", "cachegrind", "massif", "rusage", or NULL */
	char note[XP_RB_WHY]; /* why N/A, or a remark */
	/* The overlapping L4 root cause of theory's th_l4_table, when computable. */
	const char *l4_id;
	double l4_value;
	int l4_fires;
	/* Algorithmic Scaling only. */
	int sub_present[S_COUNT];
	enum rb_tierv sub_tier[S_COUNT];
	double sub_value[S_COUNT];
	double sub_pass[S_COUNT]; /* PASS bounds, under --expected-complexity */
	/* Wall-Time Stability only: per-size CVs. */
	int ncv;
	double cv_by_size[XP_RB_MAX_SIZES];
	long cv_size[XP_RB_MAX_SIZES];
};

/* Best-fit growth class over the sizes (added; not in the original). */
struct rb_fit {
	int ok;
	double k;		      /* log-log slope of the per-size median time on n */
	double slope[XP_CX_COUNT];    /* slope of ln t on ln f(n) per class */
	double residual[XP_CX_COUNT]; /* relative RMS residual of t = a + b f(n) */
	int best;		      /* enum rb_cx with the smallest residual */
	const char *time_source;      /* "task_clock" (CPU time) or "wall" */
};

struct rb_result {
	struct rb_score dim[D_COUNT];
	int total, max_possible;
	struct rb_fit fit;
};

/* A tier drop of one dimension against a reference run. */
struct rb_regr {
	int dim; /* enum rb_dim */
	enum rb_tierv ref, cur;
	int drop;
};

struct rb_regressions {
	struct rb_regr r[D_COUNT];
	int n;
};

#endif /* XPERF_RUBRIC_RUBRIC_H */
