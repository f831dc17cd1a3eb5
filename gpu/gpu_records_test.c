// SPDX-License-Identifier: MIT
/*
 * gpu_records_test.c - the .xpgpu transport: write records, dropped counts
 * and notices through the writer, read them back whole and byte by byte
 * (as a consumer following a growing file does), reject malformed input
 * with its offset, and check the file mode and the TurnTrace JSON form.
 */
#include "gpu/gpu_records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/test_check.h"

struct tally {
	int headers, records, notices;
	uint64_t dropped, last_start;
};

static void t_header(void *ctx, const struct gp_gpu_header *h)
{
	struct tally *t = ctx;

	t->headers++;
	CHECK(h->pid == 4242 && h->source == XP_GPU_SRC_UPROBE, "header pid %d", h->pid);
}

static void t_record(void *ctx, const struct gp_gpu_rec *r)
{
	struct tally *t = ctx;

	t->records++;
	t->last_start = r->start_ns;
}

static void t_dropped(void *ctx, uint64_t n)
{
	((struct tally *)ctx)->dropped += n;
}

static void t_notice(void *ctx, const char *msg)
{
	((struct tally *)ctx)->notices++;
	CHECK(!strcmp(msg, "CUPTI held by another profiler"), "notice '%s'", msg);
}

static void make_rec(struct gp_gpu_rec *r, int i)
{
	memset(r, 0, sizeof(*r));
	r->kind = (enum th_gpu_kind)(i % XP_GPU_KIND_COUNT);
	r->device = 1;
	r->stream = 7 + (uint32_t)i;
	r->correlation_id = 100 + (uint32_t)i;
	r->start_ns = 5000000000ull - 1000ull * (uint64_t)i; /* written out of order */
	r->end_ns = r->start_ns + 250;
	r->bytes = (uint64_t)i * 4096;
	snprintf(r->name, sizeof(r->name), "kernel_%d", i);
}

static char *write_file(const char *dir, int nrec)
{
	struct gp_gpu_writer *w = malloc(sizeof(*w));
	static char path[512];
	struct gp_gpu_rec r;
	struct stat st;

	CHECK(gp_gpu_writer_open(w, dir, 4242, XP_GPU_SRC_UPROBE) == 0, "open");
	for (int i = 0; i < nrec; i++) {
		make_rec(&r, i);
		CHECK(gp_gpu_writer_add(w, &r) == 0, "add %d", i);
	}
	memset(r.name, 'x', sizeof(r.name) - 1); /* too long: cut to 255 */
	r.name[sizeof(r.name) - 1] = '\0';
	CHECK(gp_gpu_writer_add(w, &r) == 0, "long name");
	CHECK(gp_gpu_writer_dropped(w, 17) == 0, "dropped");
	CHECK(gp_gpu_writer_notice(w, "CUPTI held by another profiler") == 0, "notice");
	CHECK(gp_gpu_writer_close(w) == 0, "close");
	free(w);
	snprintf(path, sizeof(path), "%s/gpu-4242.uprobe.xpgpu", dir);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "mode %o", st.st_mode & 0777);
	return path;
}

/* A consumer following a growing file: `step` more bytes appear each round. */
static void follow(const uint8_t *data, size_t len, size_t step, struct tally *t)
{
	const struct gp_gpu_visitor v = {t_header, t_record, t_dropped, t_notice, t};
	size_t off = 0, end = 0, used;
	char err[128];

	while (end < len) {
		end = end + step > len ? len : end + step;
		CHECK(gp_gpu_parse(data + off, end - off, off, &used, &v, err, sizeof(err)) == 0,
		      "%s", err);
		off += used;
	}
	CHECK(off == len, "consumed %zu of %zu", off, len);
}

static void test_roundtrip(const char *dir)
{
	const int nrec = 3000; /* > one 64 KiB stage */
	char *path = write_file(dir, nrec), err[256] = "";
	struct gp_gpu_set set = {0};
	size_t len;
	uint8_t *data = (uint8_t *)test_slurp(path, &len);

	CHECK(gp_gpu_load_dir(dir, &set, err, sizeof(err)) == 0, "%s", err);
	CHECK(set.n == (size_t)nrec + 1, "records %zu", set.n);
	CHECK(set.dropped == 17 && set.n_notices == 1 && set.truncated == 0 && set.files == 1,
	      "dropped %llu notices %zu", (unsigned long long)set.dropped, set.n_notices);
	CHECK(set.recs[0].start_ns == 5000000000ull - 1000ull * (nrec - 1), "sorted");
	CHECK(strlen(set.recs[0].name) == 255 || strlen(set.recs[1].name) == 255, "cut name");
	for (size_t step = 1; step < 100; step += 13) {
		struct tally t = {0};

		follow(data, len, step, &t);
		CHECK(t.headers == 1 && t.records == nrec + 1 && t.dropped == 17 && t.notices == 1,
		      "step %zu: %d records", step, t.records);
	}
	gp_gpu_set_free(&set);
	free(data);
}

static void test_malformed(const char *dir)
{
	const struct gp_gpu_visitor v = {0};
	char path[512], err[256] = "";
	struct gp_gpu_set set = {0};
	uint8_t bad[16 + 40] = "XPGPU";
	size_t used;
	FILE *f;

	bad[6] = 1;  /* version */
	bad[16] = 1; /* ACT */
	bad[17] = 9; /* unknown kind */
	CHECK(gp_gpu_parse(bad, sizeof(bad), 0, &used, &v, err, sizeof(err)) == -1, "bad kind");
	CHECK(!strcmp(err, "offset 16: unknown activity kind"), "%s", err);
	bad[17] = 0;
	bad[16 + 16] = 2; /* start 2 > end 0 */
	CHECK(gp_gpu_parse(bad, sizeof(bad), 0, &used, &v, err, sizeof(err)) == -1, "order");
	CHECK(!strcmp(err, "offset 16: activity ends before it starts"), "%s", err);
	snprintf(path, sizeof(path), "%s/bad.xpgpu", dir);
	f = fopen(path, "wb");
	fputs("not a gpu file at all", f);
	fclose(f);
	CHECK(gp_gpu_load_dir(dir, &set, err, sizeof(err)) == -1, "bad file accepted");
	CHECK(strstr(err, "bad.xpgpu: offset 0: not an .xpgpu file (bad magic)") != NULL, "%s",
	      err);
	gp_gpu_set_free(&set);
	CHECK(gp_gpu_load_dir("/nonexistent/xperf", &set, err, sizeof(err)) == 0 && set.n == 0,
	      "missing dir is empty");
}

/* Append n launch records (n may be 0) to pid's file of source src in dir. */
static void add_launches(const char *dir, int pid, enum gp_gpu_source src, int n)
{
	struct gp_gpu_writer *w = malloc(sizeof(*w));
	struct gp_gpu_rec r;

	CHECK(w && gp_gpu_writer_open(w, dir, pid, src) == 0, "open %d", pid);
	for (int i = 0; i < n; i++) {
		make_rec(&r, XP_GPU_LAUNCH);
		CHECK(gp_gpu_writer_add(w, &r) == 0, "add");
	}
	CHECK(gp_gpu_writer_close(w) == 0, "close");
	free(w);
}

/* Both producers on one process: CUPTI's host calls win, a notice-only CUPTI file does not. */
static void test_superseded(const char *top)
{
	struct gp_gpu_set set = {0};
	char dir[256], err[256];

	snprintf(dir, sizeof(dir), "%s/both", top);
	add_launches(dir, 7, XP_GPU_SRC_UPROBE, 2);
	add_launches(dir, 7, XP_GPU_SRC_CUPTI, 0);
	add_launches(dir, 8, XP_GPU_SRC_UPROBE, 3);
	CHECK(gp_gpu_load_dir(dir, &set, err, sizeof(err)) == 0 && set.n == 5 && !set.n_notices,
	      "CUPTI without host calls: uprobe records kept (%zu)", set.n);
	gp_gpu_set_free(&set);
	add_launches(dir, 7, XP_GPU_SRC_CUPTI, 1);
	CHECK(gp_gpu_load_dir(dir, &set, err, sizeof(err)) == 0 && set.n == 4, "pid 7: %zu", set.n);
	CHECK(set.n_notices == 1 && strstr(set.notices[0], "pid 7 left out"), "notice");
	gp_gpu_set_free(&set);
}

static void test_names(void)
{
	CHECK(gp_gpu_kind_name(XP_GPU_KIND_COUNT) == NULL, "unknown kind gives NULL");
	CHECK(!strcmp(gp_gpu_source_name(XP_GPU_SRC_UPROBE), "uprobe"), "source");
}

int main(void)
{
	char dir[] = "/tmp/xpgpu_test.XXXXXX";
	char cmd[128];

	if (!mkdtemp(dir))
		return 2;
	test_roundtrip(dir);
	test_malformed(dir);
	test_superseded(dir);
	test_names();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		test_failures++;
	return test_failures != 0;
}
