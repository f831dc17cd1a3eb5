// SPDX-License-Identifier: MIT
/*
 * sink_raw.c - `--raw FILE.jsonl`: every decoded record as one JSON object
 * per line (json.c), in a new file of mode 0600 (lib/atomic_file.h: only a
 * regular file there is replaced). Records are written as text straight
 * into one buffer (lib/json_out.h: no tree per record) that goes to the file
 * with write(2) whenever it holds RAW_FLUSH bytes, and at the end of the
 * run, including a run stopped by SIGINT/SIGTERM; a last line
 * {"type":"end", ...} carries the record and drop counts, so a reader can
 * tell a complete dump from a cut one.
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
#include "lib/json_out.h"
#include "userspace/json.h"
#include "userspace/run/sink.h"

/* Bytes gathered before a write(2): ~1,000 records, one syscall. */
#define RAW_FLUSH (256 * 1024)

struct raw {
	int fd;
	const char *path;
	struct xp_jout out;
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
	if (!r) {
		close(fd);
		return -ENOMEM;
	}
	r->fd = fd;
	r->path = run->raw_path;
	xp_jout_reset(&r->out);
	*state = r;
	return 0;
}

/* Write out what the buffer holds. */
static int flush(struct raw *r)
{
	for (size_t off = 0; off < r->out.len;) {
		ssize_t n = write(r->fd, r->out.buf + off, r->out.len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "xperf-bpf: %s: %s\n", r->path,
				strerror(n < 0 ? errno : EIO));
			return -EIO;
		}
		off += n;
	}
	xp_jout_reset(&r->out);
	return 0;
}

/* The line just appended ends at mark's end; a cut one (no memory) is taken back. */
static int end_line(struct raw *r, size_t mark, int err)
{
	if (err) {
		r->out.len = mark;
		r->out.err = 0;
		fprintf(stderr, "xperf-bpf: %s: out of memory\n", r->path);
		return err;
	}
	r->out.first = true;	/* no separator: a newline, then the next top-level object */
	xp_jout_raw(&r->out, NULL, "\n", 1);
	r->out.first = true;
	return r->out.len >= RAW_FLUSH ? flush(r) : 0;
}

static int raw_event(void *state, const struct xk_hdr *rec)
{
	struct raw *r = state;
	size_t mark = r->out.len;

	return end_line(r, mark, xpc_record_write(&r->out, rec));
}

/* The end line: the run's counts (built once, as a tree). */
static int end_record(struct raw *r, const struct xpc_counts *counts)
{
	cJSON *o = cJSON_CreateObject();
	char *text;
	int err = -ENOMEM;

	if (o) {
		cJSON_AddStringToObject(o, "type", "end");
		cJSON_AddItemToObject(o, "records", xpc_counts_json(counts->records));
		cJSON_AddItemToObject(o, "drops", xpc_counts_json(counts->drops));
		xp_json_add_u64(o, "dropped", xpc_counts_dropped(counts));
		xp_json_add_u64(o, "malformed", counts->malformed);
	}
	text = o ? xp_json_print(o, 0) : NULL;
	if (text) {
		xp_jout_raw(&r->out, NULL, text, strlen(text));
		err = end_line(r, 0, r->out.err);
	}
	free(text);
	cJSON_Delete(o);
	return err;
}

static int raw_end(void *state, struct xpc *c, const struct xpc_counts *counts)
{
	struct raw *r = state;
	int err = 0;

	(void)c;
	if (counts) {
		err = end_record(r, counts);
		err = flush(r) ?: err;
	}
	if (close(r->fd) && !err) {
		fprintf(stderr, "xperf-bpf: %s: %s\n", r->path, strerror(errno));
		err = -EIO;
	}
	xp_jout_free(&r->out);
	free(r);
	return err;
}

const struct xpb_sink xpb_sink_raw = {
	.name = "raw",
	.begin = raw_begin,
	.on_event = raw_event,
	.end = raw_end,
};
