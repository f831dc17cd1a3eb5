// SPDX-License-Identifier: MIT
/* cmd_gpu.c - `xperf gpu merge|breakdown`: GPU records into turn files, a turn's GPU time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/read.h"
#include "gpu/turn_gpu.h"
#include "lib/json_int.h"
#include "schema/validate.h"

static const char doc[] =
	"merge: add the `gpu` object of the records in DIR to each turn file (the path for a "
	"collector that ran alone; xperf-bpf merges on its own). breakdown: where each turn's "
	"GPU time went (compute, non-compute, idle).";

enum { OPT_GPU_DIR = 256, OPT_JSON };

static const struct argp_option options[] = {
	{ "gpu-dir", OPT_GPU_DIR, "DIR", 0, "merge: the GPU records (<trace dir>/gpu)", 0 },
	{ "json", OPT_JSON, NULL, 0, "breakdown: as JSON", 0 },
	{ 0 },
};

struct args {
	const char *verb, *dir;
	int json, first;
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case OPT_GPU_DIR:
		a->dir = arg;
		break;
	case OPT_JSON:
		a->json = 1;
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num) {
			a->first = state->next - 1;
			state->next = state->argc;
		} else {
			a->verb = arg;
		}
		break;
	case ARGP_KEY_END:
		if (!a->first || ((strcmp(a->verb, "merge") || !a->dir || a->json) &&
				      (strcmp(a->verb, "breakdown") || a->dir)))
			xp_args_fail(state, "expected 'merge --gpu-dir DIR TURN.json...' or "
					    "'breakdown [--json] TURN.json...'");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void print_error(const struct sc_verror *e, void *ctx)
{
	char line[1024];

	(void)ctx;
	fprintf(stderr, "xperf gpu: %s\n", sc_verror_format(e, line, sizeof(line)));
}

static int merge(int argc, char **argv, const char *dir)
{
	struct gp_gpu_set set = {0};
	char err[512];
	int rc = XP_EXIT_OK;

	/* the assembler's merge takes a missing gpu/ as "no GPU"; a named one must exist */
	if (cmd_arg_dir("gpu", dir))
		return XP_EXIT_INVALID;
	if (gp_gpu_load_dir(dir, &set, err, sizeof(err))) {
		fprintf(stderr, "xperf gpu: %s\n", err);
		gp_gpu_set_free(&set);
		return XP_EXIT_INVALID;
	}
	for (int i = 0; i < argc; i++) {
		int n = gp_gpu_merge_file(argv[i], &set, print_error, NULL, err, sizeof(err));

		if (n >= 0) {
			printf("%s: %d GPU activities merged\n", argv[i], n);
			continue;
		}
		fprintf(stderr, "xperf gpu: %s\n", err);
		if (n == -2)
			rc = XP_EXIT_FAIL;
		else if (rc == XP_EXIT_OK)
			rc = XP_EXIT_INVALID;
	}
	gp_gpu_set_free(&set);
	return rc;
}

static void print_text(const char *path, const struct gp_gpu_breakdown *b)
{
	printf("%s: GPU window %.3f ms (the turn's intelligent spans)\n", path, b->window_ns / 1e6);
	printf("  %-22s %10s %6s  %s\n", "share", "ms", "%", "L3");
	for (int s = 0; s < XP_GPU_SHARE_COUNT; s++)
		printf("  %-22s %10.3f %6.1f  %s\n", gp_gpu_share_name((enum gp_gpu_share)s),
		       b->ns[s] / 1e6, b->window_ns ? 100.0 * b->ns[s] / b->window_ns : 0.0,
		       gp_gpu_share_l3((enum gp_gpu_share)s));
	for (size_t i = 0; i < b->n_top; i++)
		printf("  top kernel %zu: %.3f ms in %u launches: %s\n", i + 1,
		       b->top[i].total_ns / 1e6, b->top[i].count, b->top[i].name);
	if (b->n_streams)
		printf("  %-16s %7s %10s %10s %10s %10s %10s %10s  (ms per stream)\n", "device:stream",
		       "kernels", "compute", "noncompute", "host_wait", "launch", "sync", "other");
	for (size_t i = 0; i < b->n_streams; i++) {
		const struct gp_gpu_stream_share *st = &b->streams[i];
		char id[32];

		snprintf(id, sizeof(id), "%u:%u", st->device, st->stream);
		printf("  %-16s %7u", id, st->kernels);
		for (int s = 0; s < XP_GPU_SHARE_COUNT; s++)
			printf(" %10.3f", st->ns[s] / 1e6);
		printf("\n");
	}
	if (b->streams_omitted)
		printf("  (%zu less busy streams not shown)\n", b->streams_omitted);
}

static cJSON *streams_json(const struct gp_gpu_breakdown *b)
{
	cJSON *v = cJSON_CreateArray();

	for (size_t i = 0; i < b->n_streams; i++) {
		const struct gp_gpu_stream_share *st = &b->streams[i];
		cJSON *o = cJSON_CreateObject(), *ns = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "device", st->device);
		cJSON_AddNumberToObject(o, "stream", st->stream);
		cJSON_AddNumberToObject(o, "kernels", st->kernels);
		for (int s = 0; s < XP_GPU_SHARE_COUNT; s++)
			xp_json_add_u64(ns, gp_gpu_share_name((enum gp_gpu_share)s), st->ns[s]);
		cJSON_AddItemToObject(o, "ns", ns);
		cJSON_AddItemToArray(v, o);
	}
	return v;
}

static cJSON *to_json(const char *path, const struct gp_gpu_breakdown *b)
{
	cJSON *o = cJSON_CreateObject(), *shares = cJSON_AddArrayToObject(o, "shares");
	cJSON *top = cJSON_AddArrayToObject(o, "top_kernels");

	cJSON_AddStringToObject(o, "file", path);
	xp_json_add_u64(o, "window_ns", b->window_ns);
	for (int s = 0; s < XP_GPU_SHARE_COUNT; s++) {
		cJSON *x = xp_json_item(shares);

		cJSON_AddStringToObject(x, "name", gp_gpu_share_name((enum gp_gpu_share)s));
		xp_json_add_u64(x, "ns", b->ns[s]);
		cJSON_AddStringToObject(x, "l3", gp_gpu_share_l3((enum gp_gpu_share)s));
	}
	for (size_t i = 0; i < b->n_top; i++) {
		cJSON *k = xp_json_item(top);

		cJSON_AddStringToObject(k, "name", b->top[i].name);
		xp_json_add_u64(k, "total_ns", b->top[i].total_ns);
		cJSON_AddNumberToObject(k, "count", b->top[i].count);
	}
	cJSON_AddItemToObject(o, "streams", streams_json(b));
	xp_json_add_u64(o, "streams_omitted", b->streams_omitted);
	return o;
}

static int breakdown(int argc, char **argv, int json)
{
	cJSON *all = cJSON_CreateArray();
	int rc = XP_EXIT_OK;

	for (int i = 0; i < argc; i++) {
		struct gp_gpu_breakdown b;
		struct tt_turn *turn = tt_turn_load(argv[i], print_error, NULL, NULL);
		char err[256];
		int r = turn ? gp_gpu_turn_breakdown(turn, &b, err, sizeof(err)) : -2;

		if (r == -1)
			fprintf(stderr, "xperf gpu: %s: %s\n", argv[i], err);
		else if (r == 1)
			fprintf(stderr, "xperf gpu: %s: no gpu object (merge GPU records first)\n",
				argv[i]);
		else if (r == 0 && json)
			cJSON_AddItemToArray(all, to_json(argv[i], &b));
		else if (r == 0)
			print_text(argv[i], &b);
		if (r)
			rc = XP_EXIT_INVALID;
		tt_turn_free(turn);
	}
	if (json)
		xp_json_fput(all, stdout);
	else
		cJSON_Delete(all);
	return rc;
}

int cmd_gpu(int argc, char **argv)
{
	static const struct xp_args args = { "xperf gpu", options, parse_arg,
					     "merge --gpu-dir DIR TURN.json...\n"
					     "breakdown [--json] TURN.json...", doc, 0, NULL };
	struct args a = { 0 };

	if (xp_args_parse(&args, argc, argv, &a))
		return XP_EXIT_USAGE;
	if (a.dir)
		return merge(argc - a.first, argv + a.first, a.dir);
	return breakdown(argc - a.first, argv + a.first, a.json);
}
