// SPDX-License-Identifier: MIT
/*
 * gpu_dump.c - xpgpu-dump: print the .xpgpu files of a directory as the
 * TurnTrace `gpu` object, plus the producer's notices and a per-kind count,
 * for people and for scripts (gpu_check.sh, tests).
 *
 * usage: xpgpu-dump DIR
 * exit: 0 ok, 2 malformed file (one line "path: offset N: why"), 64 usage.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/write.h"
#include "gpu/gpu_records.h"
#include "gpu/turn_gpu.h"
#include "lib/json_int.h"

static int print(const struct gp_gpu_set *set)
{
	struct tt_gpu *section = gp_gpu_section(set->recs, set->n, set->dropped, set->source);
	cJSON *gpu = section ? tt_gpu_json(section) : NULL; /* NULL: the adds below do nothing */
	cJSON *counts = cJSON_AddObjectToObject(gpu, "counts");
	cJSON *notes = cJSON_AddArrayToObject(gpu, "notices");
	unsigned long long n[XP_GPU_KIND_COUNT] = {0};
	int rc = 1;

	for (size_t i = 0; i < set->n; i++)
		n[set->recs[i].kind]++;
	for (int k = 0; k < XP_GPU_KIND_COUNT; k++)
		cJSON_AddNumberToObject(counts, gp_gpu_kind_name((enum th_gpu_kind)k),
					(double)n[k]);
	for (size_t i = 0; notes && i < set->n_notices; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(set->notices[i]));
	xp_json_add_u64(gpu, "truncated_files", set->truncated);
	if (counts && notes)
		rc = xp_json_fput(gpu, stdout) ? 1 : 0;
	else
		cJSON_Delete(gpu);
	tt_gpu_free(section);
	return rc;
}

int main(int argc, char **argv)
{
	struct gp_gpu_set set = {0};
	char err[512];
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: xpgpu-dump DIR\n");
		return 64;
	}
	if (gp_gpu_load_dir(argv[1], &set, err, sizeof(err))) {
		fprintf(stderr, "xpgpu-dump: %s\n", err);
		gp_gpu_set_free(&set);
		return 2;
	}
	rc = print(&set);
	gp_gpu_set_free(&set);
	return rc;
}
