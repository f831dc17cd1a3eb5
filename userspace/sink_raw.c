// SPDX-License-Identifier: MIT
/*
 * sink_raw.c - `--raw FILE.jsonl`: every decoded record as one JSON object
 * per line (json.c), in a new file of mode 0600 (lib/atomic_file.h: only a
 * regular file there is replaced). Written through stdio and flushed at
 * the end of the run, including a run stopped by SIGINT/SIGTERM; a last
 * line {"type":"end", ...} carries the record and drop counts, so a reader
 * can tell a complete dump from a cut one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lib/atomic_file.h"
#include "lib/json_int.h"
#include "userspace/json.h"
#include "userspace/sink.h"

struct raw {
	FILE *f;
	const char *path;
};

static int raw_begin(const struct xpb_run *run, void **state)
{
	struct raw *r;
	int fd;

	if (!run->raw_path)
		return -EOPNOTSUPP;
	fd = xp_out_open_stream(run->raw_path, 0);
	if (fd < 0) {
		fprintf(stderr, "xperf-bpf: %s: %s\n", run->raw_path, xp_out_strerror(fd));
		return fd;
	}
	r = calloc(1, sizeof(*r));
	if (r)
		r->f = fdopen(fd, "w");
	if (!r || !r->f) {
		close(fd);
		free(r);
		return -ENOMEM;
	}
	r->path = run->raw_path;
	*state = r;
	return 0;
}

static int write_line(struct raw *r, cJSON *o)
{
	char *s = o ? xp_json_print(o, 0) : NULL;
	int err = 0;

	if (!s || fputs(s, r->f) == EOF || fputc('\n', r->f) == EOF)
		err = -EIO;
	free(s);
	cJSON_Delete(o);
	if (err)
		fprintf(stderr, "xperf-bpf: %s: write failed\n", r->path);
	return err;
}

static int raw_event(void *state, const struct xp_hdr *rec)
{
	return write_line(state, xpc_record_json(rec));
}

static int raw_end(void *state, struct xpc *c, const struct xpc_counts *counts)
{
	struct raw *r = state;
	cJSON *o = cJSON_CreateObject();
	int err;

	(void)c;
	if (!counts) {
		cJSON_Delete(o);
		fclose(r->f);
		free(r);
		return 0;
	}
	if (o) {
		cJSON_AddStringToObject(o, "type", "end");
		cJSON_AddItemToObject(o, "records", xpc_counts_json(counts->records));
		cJSON_AddItemToObject(o, "drops", xpc_counts_json(counts->drops));
		xp_json_add_u64(o, "dropped", xpc_counts_dropped(counts));
		xp_json_add_u64(o, "malformed", counts->malformed);
	}
	err = write_line(r, o);
	if (fclose(r->f) && !err) {
		fprintf(stderr, "xperf-bpf: %s: %s\n", r->path, strerror(errno));
		err = -EIO;
	}
	free(r);
	return err;
}

const struct xpb_sink xpb_sink_raw = {
	.name = "raw",
	.begin = raw_begin,
	.on_event = raw_event,
	.end = raw_end,
};
