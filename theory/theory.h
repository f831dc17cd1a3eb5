/* SPDX-License-Identifier: MIT */
/*
 * theory.h - the Top-down model of an agent turn, as data.
 *
 * Three domains (where work executes) x four categories (why time was spent)
 * give twelve L2 subclasses. L3 points name concrete bottlenecks under one L2
 * parent; L4 root causes explain a compute-domain point with counters.
 * Nothing here decides anything: the SDK, the turn assembler and the analyzer
 * read these tables. theory/README.md explains every table and formula.
 */
#ifndef XPERF_THEORY_H
#define XPERF_THEORY_H

#include <stddef.h>
#include <stdint.h>

enum xp_domain {
	XP_DOMAIN_COMPUTE,     /* CPU: prompt assembly, parsing, tools */
	XP_DOMAIN_INTELLIGENT, /* the model: GPU or remote inference */
	XP_DOMAIN_FUSED,       /* instants where data crosses between them */
	XP_DOMAIN_COUNT
};

enum xp_category {
	XP_CAT_SUPPLY,     /* waiting for data or a resource */
	XP_CAT_PROCESSING, /* working, slower than the reference rate */
	XP_CAT_WASTE,      /* work whose result was thrown away */
	XP_CAT_EFFECTIVE,  /* work that produced the expected result */
	XP_CAT_COUNT
};

enum xp_grade {
	XP_GRADE_A, /* measured directly */
	XP_GRADE_B, /* derived from measured values */
	XP_GRADE_C, /* needs judgement; folds into Processing when filtered out */
	XP_GRADE_COUNT
};

/* How a metric compares with its threshold to fire. */
enum xp_cmp {
	XP_FIRE_ABOVE, /* value > threshold fires */
	XP_FIRE_BELOW, /* value < threshold fires */
};

enum xp_counter_kind {
	XP_COUNTER_HW, /* needs a hardware PMU */
	XP_COUNTER_SW, /* kernel software counter or scheduler data */
};

/*
 * How a span's category is derived when no waste mark applies (waste always
 * wins). One rule per domain, from the seed's STAGE_DOMAIN_MAP rules.
 */
enum xp_bound_rule {
	XP_RULE_CPU_RATIO,   /* cpu_ns/dur_ns < cpu_ratio_supply -> supply */
	XP_RULE_NAME_WAIT,   /* stage name contains "wait" -> supply */
	XP_RULE_SUPPLY_LIST, /* stage flagged supply in the stage map -> supply */
};

struct xp_domain_info {
	enum xp_domain id;
	const char *key;  /* "compute" */
	const char *name; /* "Compute domain" */
	const char *meaning;
	enum xp_bound_rule rule;
};

struct xp_category_info {
	enum xp_category id;
	const char *key;  /* "supply" */
	const char *name; /* "Supply Bound" */
	const char *meaning;
	const char *formula; /* how the category's time is measured */
};

struct xp_l2 {
	const char *id; /* "<domain>.<category>", e.g. "fused.supply" */
	enum xp_domain domain;
	enum xp_category category;
	const char *name;
	const char *meaning;
	const char *measured_by;
};

struct xp_l3 {
	const char *id;    /* "<l2 id>.<point>", stable, e.g. "fused.supply.ttft" */
	const char *l2_id; /* parent */
	enum xp_grade grade;
	const char *name;
	const char *metric; /* what is measured, e.g. "ttft_ms" */
	const char *unit;   /* "ms", "tokens/s", "ratio", "count", ... */
	double threshold;
	enum xp_cmp cmp;
	const char *suggestion; /* what the user can do about it */
};

struct xp_l4 {
	const char *id; /* "ipc_low", ... */
	const char *name;
	const char *formula; /* over counter names, e.g. "instructions / cycles" */
	const char *unit;
	double threshold;
	enum xp_cmp cmp;
	const char *counters; /* comma-separated counter names it needs */
	enum xp_counter_kind kind;
	const char *meaning;
	const char *suggestion;
};

struct xp_stage {
	const char *name; /* "prompt_assembly" */
	enum xp_domain domain;
	int supply;          /* 1 = supply stage (fused list; intelligent "wait"/idle stages) */
	int effective;       /* 1 = productive stage: its successful time can be effective */
	const char *l3_home; /* L3 point the stage's time is charged to by default */
	/* The effective-work model (theory/README.md, "Category formulas"): */
	const char *supply_l3;    /* L3 of the span's supply time */
	const char *effective_l3; /* L3 of its effective time; NULL unless productive */
	const char *work_attr;    /* attribute counting work units; NULL: all successful time */
	double ref_ns_per_unit;   /* reference cost of one unit: effective <= units x this */
};

/* A waste mark kind (TurnTrace `waste_marks[].kind`) and its default L3. */
struct xp_waste_kind {
	const char *kind;  /* "failed_tool_call" */
	const char *l3_id; /* "compute.waste.failed_tool_call" */
};

/* A counter name a span may carry (same names as lib/counters.h). */
struct xp_counter_name {
	const char *name; /* "instructions" */
	enum xp_counter_kind kind;
	const char *unit;
};

/* Global rules and defaults. */
struct xp_rules {
	double cpu_ratio_supply;    /* 0.3: compute spans below this are supply */
	double drill_threshold;     /* 0.2: descend into nodes above this share */
	double streaming_gap_ratio; /* gap > ratio x median inter-token gap ... */
	double streaming_gap_min_ms;/* ... and at least this many ms */
	double ref_decode_tps;      /* reference decode rate for effective decode */
	const char *unknown_stage_domain; /* "compute", with a data-quality warning */
	const char *unknown_stage_l3;     /* L3 of custom stages */
	const char *uncovered_stage;      /* turn time no span covers is charged as this stage */
};

extern const struct xp_domain_info xp_domains[XP_DOMAIN_COUNT];
extern const struct xp_category_info xp_categories[XP_CAT_COUNT];
extern const struct xp_l2 xp_l2_table[];
extern const size_t xp_l2_count;
extern const struct xp_l3 xp_l3_table[];
extern const size_t xp_l3_count;
extern const struct xp_l4 xp_l4_table[];
extern const size_t xp_l4_count;
extern const struct xp_stage xp_stage_table[];
extern const size_t xp_stage_count;
extern const struct xp_rules xp_rules;
extern const char *const xp_grade_names[XP_GRADE_COUNT]; /* "A", "B", "C" */
extern const char *const xp_grade_meanings[XP_GRADE_COUNT];
extern const struct xp_waste_kind xp_waste_kind_table[];
extern const size_t xp_waste_kind_count;
extern const struct xp_counter_name xp_counter_name_table[];
extern const size_t xp_counter_name_count;

/* Lookups by name; NULL when unknown. Linear scans over small tables. */
const struct xp_stage *xp_stage_find(const char *name);
const struct xp_l3 *xp_l3_find(const char *id);
const struct xp_l2 *xp_l2_find(const char *id);
const struct xp_l2 *xp_l2_of(enum xp_domain d, enum xp_category c);
const struct xp_l4 *xp_l4_find(const char *id);
const struct xp_waste_kind *xp_waste_kind_find(const char *kind);
const struct xp_counter_name *xp_counter_name_find(const char *name);
int xp_domain_parse(const char *key, enum xp_domain *out);     /* 0 ok, -1 unknown */
int xp_category_parse(const char *key, enum xp_category *out); /* 0 ok, -1 unknown */

/* GPU record kinds (TurnTrace `gpu.activities[].kind`, the .xpgpu files). */
enum xp_gpu_kind {
	XP_GPU_KERNEL,   /* a kernel execution on the device */
	XP_GPU_MEMCPY,   /* a copy (H2D, D2H, D2D, P2P) */
	XP_GPU_MEMSET,
	XP_GPU_SYNC,     /* host blocked in a stream/device/event synchronisation */
	XP_GPU_LAUNCH,   /* a runtime/driver API call (launch, copy, sync) on the host */
	XP_GPU_OVERHEAD, /* time CUPTI or the driver spent on instrumentation */
	XP_GPU_KIND_COUNT
};
/* NULL-terminated name lists: GPU kinds (by enum xp_gpu_kind), fused mark kinds. */
extern const char *const xp_gpu_kind_names[XP_GPU_KIND_COUNT + 1];
extern const char *const xp_fused_kind_names[];

/*
 * The rules (rules.c), applied by the turn core (core/rules.c), the SDK and
 * the analyzer alike; theory/README.md states each one.
 */
/* A stage's domain; NULL (custom stage): xp_rules.unknown_stage_domain. */
enum xp_domain xp_stage_domain(const struct xp_stage *st);
/* A supply stage whatever its CPU time: flagged supply, or "wait" in its name under NAME_WAIT. */
int xp_supply_stage(const struct xp_stage *st, const char *stage, enum xp_domain d);
/*
 * A span's category: waste when wasted; else supply by its domain's rule
 * (stages flagged supply; "wait" in the name for NAME_WAIT; on-CPU below
 * cpu_ratio_supply of a measured duration for CPU_RATIO), else processing.
 * st NULL: a custom stage, under xp_rules.unknown_stage_domain's rule.
 */
enum xp_category xp_category_of(const struct xp_stage *st, const char *stage, int wasted,
				int measured, uint64_t on_cpu_ns, uint64_t dur_ns);
/*
 * Token arrival times t[0..n) (ordered): an inter-token gap g is a streaming
 * gap when g > the returned threshold, i.e. g > streaming_gap_ratio x the
 * median gap (the upper of two middle ones) and g >= streaming_gap_min_ms. UINT64_MAX (no
 * gap) below 3 tokens (one gap is its own median) or on ENOMEM.
 */
uint64_t xp_stream_gap_threshold(const uint64_t *t, size_t n);
/* enum xp_gpu_kind of a name, -1 when unknown. */
int xp_gpu_kind_parse(const char *name);
/* 1 for kinds that run on the device (kernel, memcpy, memset). */
int xp_gpu_kind_on_device(enum xp_gpu_kind k);

#endif /* XPERF_THEORY_H */
