// SPDX-License-Identifier: MIT
/*
 * gpu_records.c - the .xpgpu frame format: writer and incremental parser.
 *
 * File: a 16-byte header (magic "XPGPU\0", u16 version, u32 pid, u32 source),
 * then frames. A frame is a 40-byte little-endian head followed by name_len
 * bytes of name (no NUL). Frame types: ACT (one activity), DROPPED (`bytes`
 * holds the count lost upstream), NOTICE (the name is a message). The writer
 * stages frames and issues write(2) only on frame boundaries, so a reader
 * that sees a short tail simply waits for the rest.
 */
#include "gpu/gpu_records.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/atomic_file.h"

#define XP_GPU_MAGIC   "XPGPU"
#define XP_GPU_VERSION 1
#define HDR_BYTES      16
#define FRAME_BYTES    40

enum frame_type { FRAME_ACT = 1, FRAME_DROPPED = 2, FRAME_NOTICE = 3 };

const char *gp_gpu_kind_name(enum th_gpu_kind kind)
{
	return (unsigned)kind < XP_GPU_KIND_COUNT ? th_gpu_kind_names[kind] : NULL;
}

const char *gp_gpu_source_name(enum gp_gpu_source src)
{
	return src == XP_GPU_SRC_UPROBE ? "uprobe" : "cupti";
}

/*
 * File name suffix per source: a CUPTI collector injected into a process
 * xperf-bpf also probes writes gpu-<pid>.xpgpu, the probes gpu-<pid>.uprobe.xpgpu.
 */
static const char *const file_suffix[] = {
	[XP_GPU_SRC_CUPTI] = "",
	[XP_GPU_SRC_UPROBE] = ".uprobe",
};

/* n-byte little-endian fields. */
static void put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static uint64_t get(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int gp_gpu_writer_open(struct gp_gpu_writer *w, const char *dir, int pid, enum gp_gpu_source src)
{
	char path[4096];
	struct stat st;
	int rc;

	w->fd = -1;
	w->len = 0;
	rc = xp_mkdir_p(dir);
	if (rc)
		return rc;
	if ((unsigned)src > XP_GPU_SRC_UPROBE)
		return -EINVAL;
	if (snprintf(path, sizeof(path), "%s/gpu-%d%s.xpgpu", dir, pid, file_suffix[src]) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	w->fd = xp_out_open_stream(path, 1);
	if (w->fd < 0)
		return w->fd;
	if (fstat(w->fd, &st) == 0 && st.st_size == 0) {
		uint8_t h[HDR_BYTES] = {0};

		memcpy(h, XP_GPU_MAGIC, 6);
		put(h + 6, XP_GPU_VERSION, 2);
		put(h + 8, (uint32_t)pid, 4);
		put(h + 12, (uint32_t)src, 4);
		rc = write_all(w->fd, h, sizeof(h));
		if (rc) {
			close(w->fd);
			w->fd = -1;
		}
	}
	return rc;
}

int gp_gpu_writer_flush(struct gp_gpu_writer *w)
{
	int rc = 0;

	if (w->fd >= 0 && w->len)
		rc = write_all(w->fd, w->stage, w->len);
	w->len = 0;
	return rc;
}

/* Stage one frame; names longer than XP_GPU_NAME_MAX - 1 are cut. */
static int stage_frame(struct gp_gpu_writer *w, enum frame_type type, const struct gp_gpu_rec *r,
		       const char *name)
{
	size_t nlen = strnlen(name, XP_GPU_NAME_MAX - 1);
	uint8_t *p;

	if (w->fd < 0)
		return -EBADF;
	if (w->len + FRAME_BYTES + nlen > sizeof(w->stage)) {
		int rc = gp_gpu_writer_flush(w);

		if (rc)
			return rc;
	}
	p = w->stage + w->len;
	p[0] = (uint8_t)type;
	p[1] = (uint8_t)r->kind;
	put(p + 2, (uint16_t)nlen, 2);
	put(p + 4, r->device, 4);
	put(p + 8, r->stream, 4);
	put(p + 12, r->correlation_id, 4);
	put(p + 16, r->start_ns, 8);
	put(p + 24, r->end_ns, 8);
	put(p + 32, r->bytes, 8);
	memcpy(p + FRAME_BYTES, name, nlen);
	w->len += FRAME_BYTES + nlen;
	return 0;
}

int gp_gpu_writer_add(struct gp_gpu_writer *w, const struct gp_gpu_rec *rec)
{
	return stage_frame(w, FRAME_ACT, rec, rec->name);
}

int gp_gpu_writer_dropped(struct gp_gpu_writer *w, uint64_t count)
{
	struct gp_gpu_rec r = {.bytes = count};

	return stage_frame(w, FRAME_DROPPED, &r, "");
}

int gp_gpu_writer_notice(struct gp_gpu_writer *w, const char *msg)
{
	struct gp_gpu_rec r = {0};

	return stage_frame(w, FRAME_NOTICE, &r, msg);
}

int gp_gpu_writer_close(struct gp_gpu_writer *w)
{
	int rc = gp_gpu_writer_flush(w);

	if (w->fd >= 0 && close(w->fd) && !rc)
		rc = -errno;
	w->fd = -1;
	return rc;
}

static int fail(char *err, size_t errlen, size_t off, const char *why)
{
	snprintf(err, errlen, "offset %zu: %s", off, why);
	return -1;
}

static int parse_header(const uint8_t *p, size_t off, const struct gp_gpu_visitor *v, char *err,
			size_t errlen)
{
	struct gp_gpu_header h;
	uint32_t src = get(p + 12, 4);

	if (memcmp(p, XP_GPU_MAGIC, 6))
		return fail(err, errlen, off, "not an .xpgpu file (bad magic)");
	if (get(p + 6, 2) != XP_GPU_VERSION)
		return fail(err, errlen, off, "unsupported .xpgpu version");
	if (src > XP_GPU_SRC_UPROBE)
		return fail(err, errlen, off, "unknown source");
	h.pid = (int)get(p + 8, 4);
	h.source = (enum gp_gpu_source)src;
	if (v->header)
		v->header(v->ctx, &h);
	return 0;
}

/* Decode one complete frame at p (head + name). */
static int parse_frame(const uint8_t *p, size_t off, const struct gp_gpu_visitor *v, char *err,
		       size_t errlen)
{
	struct gp_gpu_rec r = {0};
	uint16_t nlen = get(p + 2, 2);

	r.kind = (enum th_gpu_kind)p[1];
	r.device = get(p + 4, 4);
	r.stream = get(p + 8, 4);
	r.correlation_id = get(p + 12, 4);
	r.start_ns = get(p + 16, 8);
	r.end_ns = get(p + 24, 8);
	r.bytes = get(p + 32, 8);
	memcpy(r.name, p + FRAME_BYTES, nlen);
	r.name[nlen] = '\0';
	switch (p[0]) {
	case FRAME_ACT:
		if (p[1] >= XP_GPU_KIND_COUNT)
			return fail(err, errlen, off, "unknown activity kind");
		if (r.start_ns > r.end_ns)
			return fail(err, errlen, off, "activity ends before it starts");
		if (v->record)
			v->record(v->ctx, &r);
		return 0;
	case FRAME_DROPPED:
		if (v->dropped)
			v->dropped(v->ctx, r.bytes);
		return 0;
	case FRAME_NOTICE:
		if (v->notice)
			v->notice(v->ctx, r.name);
		return 0;
	}
	return fail(err, errlen, off, "unknown frame type");
}

int gp_gpu_parse(const uint8_t *data, size_t len, size_t offset, size_t *consumed,
		 const struct gp_gpu_visitor *v, char *err, size_t errlen)
{
	size_t pos = 0;

	*consumed = 0;
	if (offset == 0) {
		if (len < HDR_BYTES)
			return 0;
		if (parse_header(data, 0, v, err, errlen))
			return -1;
		pos = HDR_BYTES;
	}
	while (len - pos >= FRAME_BYTES) {
		size_t nlen = get(data + pos + 2, 2);

		if (nlen >= XP_GPU_NAME_MAX)
			return fail(err, errlen, offset + pos, "name longer than 255 bytes");
		if (len - pos < FRAME_BYTES + nlen)
			break;
		if (parse_frame(data + pos, offset + pos, v, err, errlen))
			return -1;
		pos += FRAME_BYTES + nlen;
	}
	*consumed = pos;
	return 0;
}
