// SPDX-License-Identifier: MIT
/*
 * cupti_convert_test.c - fill the CUPTI record structs of this toolkit with
 * values recorded from a real CUDA run (testdata/cupti_recorded.tsv), convert
 * them, and check every field, the demangled names and the JSON form.
 */
#include "gpu/cupti_convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/demangle.h"
#include "core/write.h"
#include "gpu/turn_gpu.h"
#include "lib/test_check.h"

struct row {
	unsigned kind, sub, device, stream, corr;
	unsigned long long start, dur, bytes;
	char name[512];
	int expect;
	char gp_kind[16];
	char gp_name[512];
};

union any_record {
	CUpti_Activity base;
	CUpti_ActivityAPI api;
	gp_kernel_t kernel;
	gp_memcpy_t memcpy;
	gp_memset_t memset;
	gp_sync_t sync;
};

/* Build the real CUPTI struct for a row, as CUPTI would hand it over. */
static void fill(const struct row *r, union any_record *u)
{
	memset(u, 0, sizeof(*u));
	switch (r->kind) {
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER:
		u->api = (CUpti_ActivityAPI){.kind = r->kind,
					     .cbid = r->sub,
					     .start = r->start,
					     .end = r->start + r->dur,
					     .processId = 493459,
					     .threadId = 493459,
					     .correlationId = r->corr};
		break;
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		u->kernel.kind = r->kind;
		u->kernel.start = r->start;
		u->kernel.end = r->start ? r->start + r->dur : 0;
		u->kernel.deviceId = r->device;
		u->kernel.streamId = r->stream;
		u->kernel.correlationId = r->corr;
		u->kernel.name = r->name;
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		u->memcpy.kind = r->kind;
		u->memcpy.copyKind = (uint8_t)r->sub;
		u->memcpy.bytes = r->bytes;
		u->memcpy.start = r->start;
		u->memcpy.end = r->start + r->dur;
		u->memcpy.deviceId = r->device;
		u->memcpy.streamId = r->stream;
		u->memcpy.correlationId = r->corr;
		break;
	case CUPTI_ACTIVITY_KIND_MEMSET:
		u->memset.kind = r->kind;
		u->memset.bytes = r->bytes;
		u->memset.start = r->start;
		u->memset.end = r->start + r->dur;
		u->memset.deviceId = r->device;
		u->memset.streamId = r->stream;
		u->memset.correlationId = r->corr;
		break;
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		u->sync.kind = r->kind;
		u->sync.type = (CUpti_ActivitySynchronizationType)r->sub;
		u->sync.start = r->start;
		u->sync.end = r->start + r->dur;
		u->sync.streamId = r->stream;
		u->sync.correlationId = r->corr;
		break;
	}
}

static int parse_row(char *line, struct row *r)
{
	char *f[12];
	int n = 0;

	for (char *s = strtok(line, "\t\n"); s && n < 12; s = strtok(NULL, "\t\n"))
		f[n++] = s;
	if (n != 12)
		return -1;
	r->kind = (unsigned)atoi(f[0]);
	r->sub = (unsigned)atoi(f[1]);
	r->start = strtoull(f[2], NULL, 10);
	r->dur = strtoull(f[3], NULL, 10);
	r->device = (unsigned)atoi(f[4]);
	r->stream = (unsigned)atoi(f[5]);
	r->corr = (unsigned)atoi(f[6]);
	r->bytes = strtoull(f[7], NULL, 10);
	snprintf(r->name, sizeof(r->name), "%s", f[8]);
	r->expect = atoi(f[9]);
	snprintf(r->gp_kind, sizeof(r->gp_kind), "%s", f[10]);
	snprintf(r->gp_name, sizeof(r->gp_name), "%s", f[11]);
	return 0;
}

static void check_row(const struct row *r, int line)
{
	union any_record u;
	struct gp_gpu_rec out;
	enum gp_cupti_conv rc;

	fill(r, &u);
	rc = gp_cupti_convert(&u.base, &out);
	CHECK((int)rc == r->expect, "line %d: result %d, want %d", line, rc, r->expect);
	if (rc != XP_CONV_OK || r->expect != XP_CONV_OK)
		return;
	CHECK(!strcmp(gp_gpu_kind_name(out.kind), r->gp_kind), "line %d: kind %s", line,
	      gp_gpu_kind_name(out.kind));
	CHECK(!strcmp(out.name, r->gp_name), "line %d: name '%s'", line, out.name);
	CHECK(out.start_ns == r->start && out.end_ns == r->start + r->dur, "line %d: times", line);
	CHECK(out.correlation_id == r->corr, "line %d: correlation %u", line, out.correlation_id);
	CHECK(out.stream == r->stream, "line %d: stream %u", line, out.stream);
	CHECK(out.device == r->device, "line %d: device %u", line, out.device);
	CHECK(out.bytes == r->bytes, "line %d: bytes %llu", line, (unsigned long long)out.bytes);
}

static int run_table(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[2048];
	int n = 0, lineno = 0;

	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct row r;

		lineno++;
		if (line[0] == '#')
			continue;
		CHECK(parse_row(line, &r) == 0, "%s:%d: bad row", path, lineno);
		check_row(&r, lineno);
		n++;
	}
	fclose(f);
	return n;
}

static void test_json(void)
{
	CUpti_ActivityAPI api = {.kind = CUPTI_ACTIVITY_KIND_DRIVER,
				 .cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
				 .start = 1000,
				 .end = 2500,
				 .correlationId = 77};
	struct gp_gpu_rec out;
	struct tt_gpu *section;
	cJSON *gpu, *a;
	char *s;

	CHECK(gp_cupti_convert((const CUpti_Activity *)&api, &out) == XP_CONV_OK, "driver launch");
	CHECK(!strcmp(out.name, "cuLaunchKernel"), "driver name %s", out.name);
	section = gp_gpu_section(&out, 1, 3, XP_GPU_SRC_CUPTI);
	gpu = section ? tt_gpu_json(section) : NULL;
	CHECK(gpu != NULL, "json");
	if (!gpu) {
		tt_gpu_free(section);
		return;
	}
	a = cJSON_GetArrayItem(cJSON_GetObjectItem(gpu, "activities"), 0);
	CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(a, "kind")), "launch"), "kind");
	CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(a, "end_ns")) == 2500, "end_ns");
	CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(a, "correlation_id")) == 77, "corr");
	CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(gpu, "dropped_records")) == 3, "dropped");
	CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(gpu, "source")), "cupti"), "source");
	s = cJSON_PrintUnformatted(gpu);
	CHECK(s && strstr(s, "\"bytes\":0"), "%s", s ? s : "(null)");
	free(s);
	cJSON_Delete(gpu);
	tt_gpu_free(section);
}

static void test_demangle_cut(void)
{
	char small[16];

	gp_demangle("_ZN10cask_cudnn20computeOffsetsKernelILb0ELb0EEEvNS_20ComputeOffsetsParamsE",
		    small, sizeof(small));
	CHECK(!strcmp(small, "void cask_cu..."), "cut: '%s'", small);
	gp_demangle("_Znot_a_valid_name", small, sizeof(small));
	CHECK(!strcmp(small, "_Znot_a_vali..."), "invalid kept: '%s'", small);
	gp_demangle(NULL, small, sizeof(small));
	CHECK(!strcmp(small, "?"), "null: '%s'", small);
}

int main(void)
{
	int n = run_table("gpu/testdata/cupti_recorded.tsv");

	CHECK(n == 15, "rows %d", n);
	test_json();
	test_demangle_cut();
	printf("CUPTI_API_VERSION %d, kernel record %zu bytes: %s\n", CUPTI_API_VERSION,
	       sizeof(gp_kernel_t), test_failures ? "FAIL" : "ok");
	return test_failures ? 1 : 0;
}
