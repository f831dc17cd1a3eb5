// SPDX-License-Identifier: MIT
/*
 * gpu_check_stats.c - what the collector recorded, for gpu_check.sh: counts
 * and total time per kind, kernels per name, the dropped count, the notices,
 * and the GPU time breakdown over the whole run (first to last record), as a
 * whole and per stream.
 * Needs only libc (the GPU machine has no cJSON and no Bazel).
 *
 * usage: gpu_check_stats DIR      output: key=value lines
 */
#include <stdio.h>
#include <string.h>

#include "gpu/attribute.h"
#include "gpu/gpu_records.h"

int main(int argc, char **argv)
{
	struct gp_gpu_set set = {0};
	struct gp_gpu_breakdown b;
	struct gp_gpu_interval run = {UINT64_MAX, 0}, k = {UINT64_MAX, 0};
	unsigned long long count[XP_GPU_KIND_COUNT] = {0}, ns[XP_GPU_KIND_COUNT] = {0};
	char err[512];

	if (argc != 2) {
		fprintf(stderr, "usage: gpu_check_stats DIR\n");
		return 64;
	}
	if (gp_gpu_load_dir(argv[1], &set, err, sizeof(err))) {
		fprintf(stderr, "gpu_check_stats: %s\n", err);
		return 2;
	}
	for (size_t i = 0; i < set.n; i++) {
		const struct gp_gpu_rec *r = &set.recs[i];

		count[r->kind]++;
		ns[r->kind] += r->end_ns - r->start_ns;
		run.start_ns = r->start_ns < run.start_ns ? r->start_ns : run.start_ns;
		run.end_ns = r->end_ns > run.end_ns ? r->end_ns : run.end_ns;
		if (r->kind != XP_GPU_KERNEL)
			continue;
		k.start_ns = r->start_ns < k.start_ns ? r->start_ns : k.start_ns;
		k.end_ns = r->end_ns > k.end_ns ? r->end_ns : k.end_ns;
	}
	for (int k = 0; k < XP_GPU_KIND_COUNT; k++)
		printf("%s_count=%llu\n%s_ns=%llu\n", gp_gpu_kind_name(k), count[k],
		       gp_gpu_kind_name(k), ns[k]);
	printf("kernel_first_ns=%llu\nkernel_last_ns=%llu\n", (unsigned long long)k.start_ns,
	       (unsigned long long)k.end_ns);
	printf("dropped=%llu\ntruncated_files=%llu\n", (unsigned long long)set.dropped,
	       (unsigned long long)set.truncated);
	for (size_t i = 0; i < set.n_notices; i++)
		printf("notice=%s\n", set.notices[i]);
	if (set.n && gp_gpu_attribute(set.recs, set.n, &run, 1, &b) == 0) {
		for (int s = 0; s < XP_GPU_SHARE_COUNT; s++)
			printf("share_%s_ns=%llu\n", gp_gpu_share_name(s),
			       (unsigned long long)b.ns[s]);
		for (size_t i = 0; i < b.n_top; i++)
			printf("top_kernel=%u %llu %s\n", b.top[i].count,
			       (unsigned long long)b.top[i].total_ns, b.top[i].name);
		for (size_t i = 0; i < b.n_streams; i++) {
			printf("stream=%u:%u kernels=%u", b.streams[i].device, b.streams[i].stream,
			       b.streams[i].kernels);
			for (int s = 0; s < XP_GPU_SHARE_COUNT; s++)
				printf(" %s_ns=%llu", gp_gpu_share_name(s),
				       (unsigned long long)b.streams[i].ns[s]);
			printf("\n");
		}
	}
	gp_gpu_set_free(&set);
	return 0;
}
