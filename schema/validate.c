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
#define SC_VALIDATE_WINDOW (64u * 1024u) /* a file is read through this many bytes */

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

/* One pass: the tokenizer's events through the shape checks, then the rules. io: a read's failure. */
static void scan(struct sc_vctx *v, struct sc_jtok *tok, int ok, const struct sc_vsink *sink,
		 const char *io)
{
	struct sc_vrules *rules = sc_vrules_new();
	struct sc_vshape *shape = rules ? sc_vshape_new(v, rules, sink) : NULL;
	struct sc_jev ev;
	int rc;

	if (!ok || !shape) {
		sc_vctx_error_at(v, 1, 1, "", "out of memory");
	} else {
		while ((rc = sc_jtok_next(tok, &ev)) > 0)
			sc_vshape_feed(shape, &ev);
		if (rc < 0) { /* not JSON (or not read): its shape does not matter */
			v->nerr = 0; /* the held errors are forgotten */
			if (tok->io_failed)
				sc_vctx_error_at(v, 0, 0, "", io);
			else
				sc_vctx_error_at(v, tok->err.line, tok->err.col, tok->err_ptr,
						 tok->err_msg);
		} else if (!v->nerr) {
			sc_vrules_turn(v, rules);
		}
	}
	sc_jtok_free(tok);
	sc_vshape_free(shape);
	sc_vrules_free(rules);
}

int sc_validate_buffer_into(const char *file, const char *buf, size_t len, sc_verror_fn cb,
			    void *ctx, const struct sc_vsink *sink)
{
	struct sc_vctx v = { .file = file, .cb = cb, .cbctx = ctx };
	struct sc_jtok tok;
	char msg[128];

	if (len > XP_VALIDATE_MAX_BYTES) {
		snprintf(msg, sizeof(msg), "input is %zu bytes, over the %u MiB limit", len,
			 XP_VALIDATE_MAX_BYTES / MIB);
		sc_vctx_error_at(&v, 0, 0, "", msg);
	} else {
		scan(&v, &tok, !sc_jtok_init(&tok, buf, len, XP_VALIDATE_MAX_DEPTH,
					     XP_VALIDATE_MAX_VALUES), sink, NULL);
	}
	sc_vctx_flush(&v);
	return v.nerr;
}

int sc_validate_buffer(const char *file, const char *buf, size_t len, sc_verror_fn cb, void *ctx)
{
	return sc_validate_buffer_into(file, buf, len, cb, ctx, NULL);
}

/* A regular file of at most XP_VALIDATE_MAX_BYTES, read up to its size when opened. */
struct capped {
	int fd;
	size_t left;
	char msg[128];
};

static ssize_t read_capped(void *ctx, void *buf, size_t cap)
{
	struct capped *f = ctx;
	ssize_t r = 0;

	while (f->left && (r = read(f->fd, buf, cap < f->left ? cap : f->left)) < 0 &&
	       errno == EINTR)
		;
	if (f->left && r <= 0) {
		snprintf(f->msg, sizeof(f->msg), "read failed: %s",
			 r < 0 ? strerror(errno) : "short read");
		return -1;
	}
	f->left -= (size_t)r; /* a file that grows while we read is cut at its size when opened */
	return r;
}

/* Opens path into f; -1 with f->msg on failure. */
static int open_capped(const char *path, struct capped *f)
{
	struct stat st;

	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (f->fd < 0 || fstat(f->fd, &st))
		snprintf(f->msg, sizeof(f->msg), "cannot open: %s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(f->msg, sizeof(f->msg), "not a regular file");
	else if ((unsigned long long)st.st_size > XP_VALIDATE_MAX_BYTES)
		snprintf(f->msg, sizeof(f->msg), "file is %lld bytes, over the %u MiB limit",
			 (long long)st.st_size, XP_VALIDATE_MAX_BYTES / MIB);
	else {
		f->left = (size_t)st.st_size;
		return 0;
	}
	return -1;
}

int sc_validate_file_into(const char *path, sc_verror_fn cb, void *ctx,
			  const struct sc_vsink *sink)
{
	struct sc_vctx v = { .file = path, .cb = cb, .cbctx = ctx };
	struct capped f = { .fd = -1 };
	struct sc_jtok tok;

	if (open_capped(path, &f))
		sc_vctx_error_at(&v, 0, 0, "", f.msg);
	else
		scan(&v, &tok, !sc_jtok_init_read(&tok, read_capped, &f, SC_VALIDATE_WINDOW,
						  XP_VALIDATE_MAX_DEPTH, XP_VALIDATE_MAX_VALUES),
		     sink, f.msg);
	if (f.fd >= 0)
		close(f.fd);
	sc_vctx_flush(&v);
	return v.nerr;
}

int sc_validate_file(const char *path, sc_verror_fn cb, void *ctx)
{
	return sc_validate_file_into(path, cb, ctx, NULL);
}

char *sc_verror_format(const struct sc_verror *e, char *out, size_t outlen)
{
	const char *file = e->file ? e->file : "<buffer>";

	if (!e->line) /* the file itself (cannot open, not a regular file, too big, a read error) */
		snprintf(out, outlen, "%s: %s", file, e->msg);
	else
		snprintf(out, outlen, "%s:%d:%d: %s: %s", file, e->line, e->col,
			 e->pointer[0] ? e->pointer : "/", e->msg);
	return out;
}
