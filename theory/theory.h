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

enum th_domain {
	XP_DOMAIN_COMPUTE,     /* CPU: prompt assembly, parsing, tools */
	XP_DOMAIN_INTELLIGENT, /* the model: GPU or remote inference */
	XP_DOMAIN_FUSED,       /* instants where data crosses between them */
	XP_DOMAIN_COUNT
};

enum th_category {
	XP_CAT_SUPPLY,     /* waiting for data or a resource */
	XP_CAT_PROCESSING, /* working, slower than the reference rate */
	XP_CAT_WASTE,      /* work whose result was thrown away */
	XP_CAT_EFFECTIVE,  /* work that produced the expected result */
	XP_CAT_COUNT
};

enum th_grade {
	XP_GRADE_A, /* measured directly */
	XP_GRADE_B, /* derived from measured values */
	XP_GRADE_C, /* needs judgement; folds into Processing when filtered out */
	XP_GRADE_COUNT
};

/* How a metric compares with its threshold to fire. */
enum th_cmp {
	XP_FIRE_ABOVE, /* value > threshold fires */
	XP_FIRE_BELOW, /* value < threshold fires */
};

enum th_counter_kind {
	XP_COUNTER_HW, /* needs a hardware PMU */
	XP_COUNTER_SW, /* kernel software counter or scheduler data */
};

/*
 * How a span's category is derived when no waste mark applies (waste always
 * wins). One rule per domain, from the seed's STAGE_DOMAIN_MAP rules.
 */
enum th_bound_rule {
	XP_RULE_CPU_RATIO,   /* cpu_ns/dur_ns < cpu_ratio_supply -> supply */
	XP_RULE_NAME_WAIT,   /* stage name contains "wait" -> supply */
	XP_RULE_SUPPLY_LIST, /* stage flagged supply in the stage map -> supply */
};

struct th_domain_info {
	enum th_domain id;
	const char *key;  /* "compute" */
	const char *name; /* "Compute domain" */
	const char *meaning;
	enum th_bound_rule rule;
};

struct th_category_info {
	enum th_category id;
	const char *key;  /* "supply" */
	const char *name; /* "Supply Bound" */
	const char *meaning;
	const char *formula; /* how the category's time is measured */
};

struct th_l2 {
	const char *id; /* "<domain>.<category>", e.g. "fused.supply" */
	enum th_domain domain;
	enum th_category category;
	const char *name;
	const char *meaning;
	const char *measured_by;
};

struct th_l3 {
	const char *id;    /* "<l2 id>.<point>", stable, e.g. "fused.supply.ttft" */
	const char *l2_id; /* parent */
	enum th_grade grade;
	const char *name;
	const char *metric; /* what is measured, e.g. "ttft_ms" */
	const char *unit;   /* "ms", "tokens/s", "ratio", "count", ... */
	double threshold;
	enum th_cmp cmp;
	const char *suggestion; /* what the user can do about it */
};

struct th_l4 {
	const char *id; /* "ipc_low", ... */
	const char *name;
	const char *formula; /* over counter names, e.g. "instructions / cycles" */
	const char *unit;
	double threshold;
	enum th_cmp cmp;
	const char *counters; /* comma-separated counter names it needs */
	enum th_counter_kind kind;
	const char *meaning;
	const char *suggestion;
};

struct th_stage {
	const char *name; /* "prompt_assembly" */
	enum th_domain domain;
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
struct th_waste_kind {
	const char *kind;  /* "failed_tool_call" */
	const char *l3_id; /* "compute.waste.failed_tool_call" */
};

/* A counter name a span may carry: th_counter_name_table[c] for lib/counters.h counter c. */
struct th_counter_name {
	const char *name; /* "instructions" */
	enum th_counter_kind kind;
	const char *unit;
};

/* Global rules and defaults. */
struct th_rules {
	double cpu_ratio_supply;    /* 0.3: compute spans below this are supply */
	double drill_threshold;     /* 0.2: descend into nodes above this share */
	double streaming_gap_ratio; /* gap > ratio x median inter-token gap ... */
	double streaming_gap_min_ms;/* ... and at least this many ms */
	double ref_decode_tps;      /* reference decode rate for effective decode */
	const char *unknown_stage_domain; /* "compute", with a data-quality warning */
	const char *unknown_stage_l3;     /* L3 of custom stages */
	const char *uncovered_stage;      /* turn time no span covers is charged as this stage */
};

extern const struct th_domain_info th_domains[XP_DOMAIN_COUNT];
extern const struct th_category_info th_categories[XP_CAT_COUNT];
extern const struct th_l2 th_l2_table[];
extern const size_t th_l2_count;
extern const struct th_l3 th_l3_table[];
extern const size_t th_l3_count;
extern const struct th_l4 th_l4_table[];
extern const size_t th_l4_count;
extern const struct th_stage th_stage_table[];
extern const size_t th_stage_count;
extern const struct th_rules th_rules;
extern const char *const th_grade_names[XP_GRADE_COUNT]; /* "A", "B", "C" */
extern const char *const th_grade_meanings[XP_GRADE_COUNT];
extern const struct th_waste_kind th_waste_kind_table[];
extern const size_t th_waste_kind_count;
extern const struct th_counter_name th_counter_name_table[];
extern const size_t th_counter_name_count;

/* Lookups by name; NULL when unknown. Linear scans over small tables. */
const struct th_stage *th_stage_find(const char *name);
const struct th_l3 *th_l3_find(const char *id);
const struct th_l2 *th_l2_find(const char *id);
const struct th_l2 *th_l2_of(enum th_domain d, enum th_category c);
const struct th_l4 *th_l4_find(const char *id);
const struct th_waste_kind *th_waste_kind_find(const char *kind);
const struct th_counter_name *th_counter_name_find(const char *name);
int th_domain_parse(const char *key, enum th_domain *out);     /* 0 ok, -1 unknown */
int th_category_parse(const char *key, enum th_category *out); /* 0 ok, -1 unknown */

/* GPU record kinds (TurnTrace `gpu.activities[].kind`, the .xpgpu files). */
enum th_gpu_kind {
	XP_GPU_KERNEL,   /* a kernel execution on the device */
	XP_GPU_MEMCPY,   /* a copy (H2D, D2H, D2D, P2P) */
	XP_GPU_MEMSET,
	XP_GPU_SYNC,     /* host blocked in a stream/device/event synchronisation */
	XP_GPU_LAUNCH,   /* a runtime/driver API call (launch, copy, sync) on the host */
	XP_GPU_OVERHEAD, /* time CUPTI or the driver spent on instrumentation */
	XP_GPU_KIND_COUNT
};
/* NULL-terminated name lists: GPU kinds (by enum th_gpu_kind), fused mark kinds. */
extern const char *const th_gpu_kind_names[XP_GPU_KIND_COUNT + 1];
extern const char *const th_fused_kind_names[];

/*
 * The rules (rules.c), applied by the turn core (core/rules.c), the SDK and
 * the analyzer alike; theory/README.md states each one.
 */
/* A stage's domain; NULL (custom stage): th_rules.unknown_stage_domain. */
enum th_domain th_stage_domain(const struct th_stage *st);
/* A supply stage whatever its CPU time: flagged supply, or "wait" in its name under NAME_WAIT. */
int th_supply_stage(const struct th_stage *st, const char *stage, enum th_domain d);
/*
 * A span's category: waste when wasted; else supply by its domain's rule
 * (stages flagged supply; "wait" in the name for NAME_WAIT; on-CPU below
 * cpu_ratio_supply of a measured duration for CPU_RATIO), else processing.
 * st NULL: a custom stage, under th_rules.unknown_stage_domain's rule.
 */
enum th_category th_category_of(const struct th_stage *st, const char *stage, int wasted,
				int measured, uint64_t on_cpu_ns, uint64_t dur_ns);
/*
 * Token arrival times t[0..n) (ordered): an inter-token gap g is a streaming
 * gap when g > the returned threshold, i.e. g > streaming_gap_ratio x the
 * median gap (the upper of two middle ones) and g >= streaming_gap_min_ms. UINT64_MAX (no
 * gap) below 3 tokens (one gap is its own median) or on ENOMEM.
 */
uint64_t th_stream_gap_threshold(const uint64_t *t, size_t n);
/* enum th_gpu_kind of a name, -1 when unknown. */
int th_gpu_kind_parse(const char *name);
/* 1 for kinds that run on the device (kernel, memcpy, memset). */
int th_gpu_kind_on_device(enum th_gpu_kind k);

#endif /* XPERF_THEORY_H */
