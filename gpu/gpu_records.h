/* SPDX-License-Identifier: MIT */
/*
 * gpu_records.h - the compact GPU activity record and its transport.
 *
 * Producers (the CUPTI collector injected into a CUDA process, the uprobe
 * fallback) append records to one file per process, `<dir>/gpu-<pid>.xpgpu`,
 * where <dir> is $XPERF_GPU_DIR (for xperf-bpf to set for the command it traces)
 * or <trace dir>/gpu when the collector runs alone. Consumers (xperf-bpf, the
 * turn assembler) read those files with the API below: as a whole
 * (gp_gpu_load_dir) or incrementally while the producer still writes
 * (gp_gpu_parse returns how much it consumed; an incomplete tail is left for
 * the next call). Appends are whole frames of a few dozen bytes written with
 * O_APPEND, so nothing is lost and the producer's memory stays bounded by its
 * staging buffer. gpu/README.md documents the byte layout.
 *
 * Times are CLOCK_MONOTONIC nanoseconds, like every other xperf timestamp.
 */
#ifndef XPERF_GPU_RECORDS_H
#define XPERF_GPU_RECORDS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "theory/theory.h" /* enum th_gpu_kind */


/* Longest stored name, NUL included; longer (demangled) names are cut. */
#define XP_GPU_NAME_MAX 256

struct gp_gpu_rec {
	enum th_gpu_kind kind;
	uint32_t device;
	uint32_t stream;
	uint32_t correlation_id; /* links a launch call to its device activity */
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t bytes; /* memcpy/memset size; 0 otherwise */
	char name[XP_GPU_NAME_MAX];
};

enum gp_gpu_source {
	XP_GPU_SRC_CUPTI,
	XP_GPU_SRC_UPROBE,
};

/* "kernel", "memcpy", ... as TurnTrace's gpu.activities[].kind; NULL when out of range. */
const char *gp_gpu_kind_name(enum th_gpu_kind kind);
/* "cupti" or "uprobe", as TurnTrace's gpu.source. */
const char *gp_gpu_source_name(enum gp_gpu_source src);

/* ---- writer (producers) ---- */

#define XP_GPU_STAGE_BYTES 65536

struct gp_gpu_writer {
	int fd;
	size_t len;
	uint8_t stage[XP_GPU_STAGE_BYTES];
};

/*
 * Open (create, mode 0600, parent made 0700) <dir>/gpu-<pid>.xpgpu
 * (gpu-<pid>.uprobe.xpgpu for XP_GPU_SRC_UPROBE, so both producers can
 * cover one process) for appending and write the file header when the file
 * is new. 0 or -errno.
 */
int gp_gpu_writer_open(struct gp_gpu_writer *w, const char *dir, int pid, enum gp_gpu_source src);
/* Stage one record (flushing first when the stage is full). 0 or -errno. */
int gp_gpu_writer_add(struct gp_gpu_writer *w, const struct gp_gpu_rec *rec);
/* Record that `count` activity records were lost upstream. 0 or -errno. */
int gp_gpu_writer_dropped(struct gp_gpu_writer *w, uint64_t count);
/* A one-line notice for the consumer's data-quality warnings. 0 or -errno. */
int gp_gpu_writer_notice(struct gp_gpu_writer *w, const char *msg);
/* write(2) everything staged; only whole frames reach the file. 0 or -errno. */
int gp_gpu_writer_flush(struct gp_gpu_writer *w);
/* Flush and close. 0 or -errno of the first failure. */
int gp_gpu_writer_close(struct gp_gpu_writer *w);

/* ---- reader (consumers) ---- */

struct gp_gpu_header {
	int pid;
	enum gp_gpu_source source;
};

struct gp_gpu_visitor {
	void (*header)(void *ctx, const struct gp_gpu_header *h);
	void (*record)(void *ctx, const struct gp_gpu_rec *rec);
	void (*dropped)(void *ctx, uint64_t count);
	void (*notice)(void *ctx, const char *msg);
	void *ctx;
};

/*
 * Parse frames from data[0..len) of one file. `offset` is where data starts
 * in the file (0 = the header is expected first). Calls the visitor for each
 * complete frame and stores in *consumed how many bytes were used; an
 * incomplete frame at the end is not an error (call again with more data).
 * Returns 0, or -1 with a one-line message "offset N: why" in err (errlen
 * bytes) on malformed input.
 */
int gp_gpu_parse(const uint8_t *data, size_t len, size_t offset, size_t *consumed,
		 const struct gp_gpu_visitor *v, char *err, size_t errlen);

/* Everything read from the files of one directory. */
struct gp_gpu_set {
	struct gp_gpu_rec *recs;
	size_t n, cap;
	uint64_t dropped;   /* sum of dropped frames */
	uint64_t truncated; /* files that ended inside a frame */
	char **notices;
	size_t n_notices, cap_notices;
	enum gp_gpu_source source; /* of the last header read */
	int files;
};

/*
 * Load every *.xpgpu file of dir into set (zeroed by the caller), records
 * sorted by start_ns; gpu-<pid>.uprobe.xpgpu is left out (with a notice)
 * when gpu-<pid>.xpgpu holds launch or sync records (CUPTI saw the same
 * calls). A missing directory is an empty set. Returns 0, or -1
 * with "path: offset N: why" in err; records read before the error are kept.
 */
int gp_gpu_load_dir(const char *dir, struct gp_gpu_set *set, char *err, size_t errlen);
void gp_gpu_set_free(struct gp_gpu_set *set);
/* 1 when dir holds a .xpgpu file modified at or after `since` (a live source). */
int gp_gpu_dir_written_since(const char *dir, time_t since);

#endif /* XPERF_GPU_RECORDS_H */
