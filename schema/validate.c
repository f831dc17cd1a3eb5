/* SPDX-License-Identifier: MIT */
/*
 * validate.c - entry points of the TurnTrace validator (see validate.h):
 * read a file with a size cap, pull its values from the tokenizer (jtok.c)
 * through the shape checks (vshape.c), then the cross-field rules (vrules.c).
 */
#include "schema/validate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "schema/jtok.h"
#include "schema/vcheck.h"
#include "schema/vctx.h"

#define MIB (1024u * 1024u)

long long sc_vint(const struct sc_jev *ev)
{
	char lit[64], *end;
	long long v;

	if (ev->integer && ev->litlen < sizeof(lit)) {
		memcpy(lit, ev->lit, ev->litlen);
		lit[ev->litlen] = '\0';
		errno = 0;
		v = strtoll(lit, &end, 10);
		if (!errno)
			return v;
	}
	if (!(ev->num > -9.2e18 && ev->num < 9.2e18)) /* not an integer the schema accepts */
		return ev->num < 0 ? LLONG_MIN : LLONG_MAX;
	return (long long)ev->num;
}

/* One pass: the tokenizer's events through the shape checks, then the rules. */
static void scan(struct sc_vctx *v, const char *buf, size_t len, const struct sc_vsink *sink)
{
	struct sc_vrules *rules = sc_vrules_new();
	struct sc_vshape *shape = rules ? sc_vshape_new(v, rules, sink) : NULL;
	struct sc_jtok tok;
	struct sc_jev ev;
	int rc;

	if (sc_jtok_init(&tok, buf, len, XP_VALIDATE_MAX_DEPTH, XP_VALIDATE_MAX_VALUES) ||
	    !shape) {
		sc_vctx_error_at(v, 1, 1, "", "out of memory");
	} else {
		while ((rc = sc_jtok_next(&tok, &ev)) > 0)
			sc_vshape_feed(shape, &ev);
		if (rc < 0) { /* not JSON: its shape does not matter */
			sc_vctx_drop(v);
			sc_vctx_error_at(v, tok.err.line, tok.err.col, tok.err_ptr, tok.err_msg);
		} else if (!v->nerr) {
			sc_vrules_turn(v, rules);
		}
	}
	sc_jtok_free(&tok);
	sc_vshape_free(shape);
	sc_vrules_free(rules);
}

int sc_validate_buffer_into(const char *file, const char *buf, size_t len, sc_verror_fn cb,
			    void *ctx, const struct sc_vsink *sink)
{
	struct sc_vctx v = { .file = file, .cb = cb, .cbctx = ctx };
	char msg[128];

	if (len > XP_VALIDATE_MAX_BYTES) {
		snprintf(msg, sizeof(msg), "input is %zu bytes, over the %u MiB limit", len,
			 XP_VALIDATE_MAX_BYTES / MIB);
		sc_vctx_error_at(&v, 0, 0, "", msg);
	} else {
		scan(&v, buf, len, sink);
	}
	sc_vctx_flush(&v);
	return v.nerr;
}

int sc_validate_buffer(const char *file, const char *buf, size_t len, sc_verror_fn cb, void *ctx)
{
	return sc_validate_buffer_into(file, buf, len, cb, ctx, NULL);
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

int sc_validate_file_into(const char *path, sc_verror_fn cb, void *ctx,
			  const struct sc_vsink *sink)
{
	char msg[128];
	size_t len;
	char *buf = read_capped(path, &len, msg);
	int nerr;

	if (!buf) {
		io_error(path, cb, ctx, msg);
		return 1;
	}
	nerr = sc_validate_buffer_into(path, buf, len, cb, ctx, sink);
	free(buf);
	return nerr;
}

int sc_validate_file(const char *path, sc_verror_fn cb, void *ctx)
{
	return sc_validate_file_into(path, cb, ctx, NULL);
}

char *sc_verror_format(const struct sc_verror *e, char *out, size_t outlen)
{
	snprintf(out, outlen, "%s:%d:%d: %s: %s", e->file ? e->file : "<buffer>", e->line,
		 e->col, e->pointer[0] ? e->pointer : "/", e->msg);
	return out;
}
