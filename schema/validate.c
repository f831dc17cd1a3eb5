/* SPDX-License-Identifier: MIT */
/*
 * validate.c - entry points of the TurnTrace validator (see validate.h):
 * read a file with a size cap, scan its bytes (jscan.c), parse with cJSON,
 * check the shape (vshape.c), then the cross-field rules (vrules.c).
 */
#include "schema/validate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/json_int.h"
#include "schema/jscan.h"
#include "schema/vcheck.h"
#include "schema/vctx.h"

#define MIB (1024u * 1024u)

static cJSON *check(const char *file, const char *buf, size_t len, sc_verror_fn cb, void *ctx,
		    int *nerr)
{
	struct sc_vctx v = { .file = file, .cb = cb, .cbctx = ctx };
	struct sc_jscan scan;
	cJSON *root = NULL;
	char msg[128];

	if (len > XP_VALIDATE_MAX_BYTES) {
		snprintf(msg, sizeof(msg), "input is %zu bytes, over the %u MiB limit", len,
			 XP_VALIDATE_MAX_BYTES / MIB);
		sc_vctx_error_at(&v, 0, 0, "", msg);
	} else if (sc_jscan(buf, len, XP_VALIDATE_MAX_DEPTH, XP_VALIDATE_MAX_VALUES, &scan)) {
		sc_vctx_error_at(&v, scan.err.line, scan.err.col, scan.err_ptr, scan.err_msg);
	} else {
		root = xp_json_parse(buf, len);
		if (!root) {
			sc_vctx_error_at(&v, 1, 1, "",
					 "cJSON could not parse the document (out of memory?)");
		} else {
			v.root = root;
			v.scan = &scan;
			sc_vshape_turn(&v, root);
			if (!v.nerr)
				sc_vrules_turn(&v, root);
		}
		sc_jscan_free(&scan);
	}
	sc_vctx_free(&v);
	if (v.nerr) {
		cJSON_Delete(root);
		root = NULL;
	}
	if (nerr)
		*nerr = v.nerr;
	return root;
}

int sc_validate_buffer(const char *file, const char *buf, size_t len, sc_verror_fn cb, void *ctx)
{
	int nerr;

	cJSON_Delete(check(file, buf, len, cb, ctx, &nerr));
	return nerr;
}

cJSON *sc_load_turn_buffer(const char *file, const char *buf, size_t len, sc_verror_fn cb,
			   void *ctx, int *nerr)
{
	return check(file, buf, len, cb, ctx, nerr);
}

static void io_error(const char *path, sc_verror_fn cb, void *ctx, const char *msg)
{
	struct sc_verror e = { .file = path };

	snprintf(e.msg, sizeof(e.msg), "%s", msg);
	if (cb)
		cb(&e, ctx);
}

/* Read a whole regular file of at most XP_VALIDATE_MAX_BYTES; NULL with msg on failure. */
static char *read_capped(const char *path, size_t *len, char msg[128])
{
	struct stat st;
	char *buf = NULL;
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0 || fstat(fd, &st)) {
		snprintf(msg, 128, "cannot open: %s", strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(msg, 128, "not a regular file");
	} else if ((unsigned long long)st.st_size > XP_VALIDATE_MAX_BYTES) {
		snprintf(msg, 128, "file is %lld bytes, over the %u MiB limit",
			 (long long)st.st_size, XP_VALIDATE_MAX_BYTES / MIB);
	} else if (!(buf = malloc((size_t)st.st_size + 1))) {
		snprintf(msg, 128, "out of memory");
	} else {
		ssize_t r;

		/* A file that grows while we read is cut at its size when opened. */
		while (n < (size_t)st.st_size &&
		       ((r = read(fd, buf + n, (size_t)st.st_size - n)) > 0 ||
			(r < 0 && errno == EINTR)))
			n += r > 0 ? (size_t)r : 0;
		if (n < (size_t)st.st_size) {
			snprintf(msg, 128, "read failed: %s",
				 r < 0 ? strerror(errno) : "short read");
			free(buf);
			buf = NULL;
		}
	}
	if (fd >= 0)
		close(fd);
	*len = n;
	return buf;
}

cJSON *sc_load_turn(const char *path, sc_verror_fn cb, void *ctx, int *nerr)
{
	char msg[128];
	size_t len;
	char *buf = read_capped(path, &len, msg);
	cJSON *root;

	if (!buf) {
		io_error(path, cb, ctx, msg);
		if (nerr)
			*nerr = 1;
		return NULL;
	}
	root = check(path, buf, len, cb, ctx, nerr);
	free(buf);
	return root;
}

int sc_validate_file(const char *path, sc_verror_fn cb, void *ctx)
{
	int nerr;

	cJSON_Delete(sc_load_turn(path, cb, ctx, &nerr));
	return nerr;
}

char *sc_verror_format(const struct sc_verror *e, char *out, size_t outlen)
{
	snprintf(out, outlen, "%s:%d:%d: %s: %s", e->file ? e->file : "<buffer>", e->line,
		 e->col, e->pointer[0] ? e->pointer : "/", e->msg);
	return out;
}
