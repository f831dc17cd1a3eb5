// SPDX-License-Identifier: MIT
/*
 * locate.c - identity, cache and dispatch of the locator (locate.h). Only
 * results for files that hold a known stack go to disk (found or failed):
 * the cheap "no stack here" answer for libc and friends stays in memory.
 */
#include "userspace/locate/locate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/atomic_file.h"
#include "lib/clock_anchor.h"
#include "lib/grow.h"
#include "userspace/locate/elf_view.h"

struct loc_locator {
	char *dir;
	struct loc_result *mem;
	size_t n, cap;
};

const char *const loc_status_names[] = { "none", "found", "failed" };

/* What each stack's located write and read functions are. */
static const struct {
	const char *stack, *fn[2];
} fn_names[] = {
	{ "boringssl", { "SSL_write", "SSL_read" } },
	{ "go", { "crypto/tls.(*Conn).Write", "crypto/tls.(*Conn).Read" } },
	{ "rustls", { "send_appdata_encrypt", "take_received_plaintext" } },
};

const char *loc_fn_name(const struct loc_result *r, bool read)
{
	for (size_t i = 0; i < sizeof(fn_names) / sizeof(fn_names[0]); i++)
		if (!strcmp(r->stack, fn_names[i].stack))
			return fn_names[i].fn[read];
	return read ? "SSL_read" : "SSL_write";
}

/*
 * A stack's analysis answered r (1: found, -1: failed, 0: not this stack):
 * name it in out; true when the caller has more to fill (found).
 */
static bool stack_found(struct loc_result *out, const char *stack, int r)
{
	snprintf(out->stack, sizeof(out->stack), "%s", stack);
	out->status = r > 0 ? LOC_FOUND : LOC_FAILED;
	return r > 0;
}

/* Go's crypto/tls, from .gopclntab: 0 if the file is not Go with crypto/tls. */
static int locate_go(const struct loc_elf_view *v, struct loc_result *out)
{
	struct loc_go_found g;
	int r = loc_go_locate(v, &g, out->why, sizeof(out->why));

	if (r == 0 || !stack_found(out, "go", r))
		return r != 0;
	out->write_off = g.write.offset;
	out->read_off = g.read.offset;
	memcpy(out->write_rets, g.write.rets, sizeof(g.write.rets));
	memcpy(out->read_rets, g.read.rets, sizeof(g.read.rets));
	out->nwrite_rets = g.write.nrets;
	out->nread_rets = g.read.nrets;
	snprintf(out->why, sizeof(out->why), ".gopclntab (%u functions), %u + %u RETs", g.nfunc,
		 g.write.nrets, g.read.nrets);
	return 1;
}

/* rustls, by its record layer's panic Location and call graph: 0 if no rustls. */
static int locate_rustls(const struct loc_elf_view *v, struct loc_result *out)
{
	struct loc_rustls_found f;
	int r = loc_rustls_locate(v, &f, out->why, sizeof(out->why));

	if (r == 0 || !stack_found(out, "rustls", r))
		return r != 0;
	out->write_off = f.write.offset;
	out->read_off = f.read.offset;
	out->conn_off = f.conn_off;
	snprintf(out->why, sizeof(out->why),
		 "record_layer.rs panic site in %u functions, call graph, id %s", f.sites,
		 f.conn_off ? "the boxed encrypter" : "the CommonState's address");
	return 1;
}

void loc_image(const void *img, size_t len, struct loc_result *out)
{
	struct loc_boringssl_found b;
	struct loc_elf_view v;
	const char *err;
	int r;

	out->status = LOC_NONE;
	out->stack[0] = '\0';
	out->write_off = out->read_off = 0;
	out->nwrite_rets = out->nread_rets = out->conn_off = 0;
	err = loc_elf_view_open(&v, img, len);
	if (err) {
		snprintf(out->why, sizeof(out->why), "%s", err);
		return;
	}
	if (locate_go(&v, out) || locate_rustls(&v, out))
		return;
	r = loc_boringssl_locate(&v, &b, out->why, sizeof(out->why));
	if (r == 0 || !stack_found(out, "boringssl", r))
		return;
	out->write_off = b.write.offset;
	out->read_off = b.read.offset;
	snprintf(out->why, sizeof(out->why), "%u error calls, bounds from %s", b.sites, b.bounds);
}

struct loc_locator *loc_locator_new(const char *cache_dir)
{
	struct loc_locator *l = calloc(1, sizeof(*l));

	if (l && cache_dir && !(l->dir = strdup(cache_dir))) {
		free(l);
		return NULL;
	}
	return l;
}

void loc_locator_free(struct loc_locator *l)
{
	if (!l)
		return;
	free(l->dir);
	free(l->mem);
	free(l);
}

const char *loc_locator_default_dir(void)
{
	const char *d = getenv("XPERF_CACHE_DIR");

	return d && *d ? d : "/var/cache/xperf/locate";
}

static void make_key(const struct loc_elf_view *v, const struct stat *st, char *key, size_t len)
{
	size_t k;

	if (!v || !v->build_id_len) {
		snprintf(key, len, "inode:%ju:%ju:%jd:%jd.%09ld", (uintmax_t)st->st_dev,
			 (uintmax_t)st->st_ino, (intmax_t)st->st_size, (intmax_t)st->st_mtim.tv_sec,
			 st->st_mtim.tv_nsec);
		return;
	}
	k = (size_t)snprintf(key, len, "build-id:");
	for (size_t i = 0; i < v->build_id_len && k + 3 <= len; i++)
		k += (size_t)snprintf(key + k, len - k, "%02x", v->build_id[i]);
}

static const struct loc_result *mem_find(const struct loc_locator *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->mem[i].key, key))
			return &l->mem[i];
	return NULL;
}

static void mem_add(struct loc_locator *l, const struct loc_result *r)
{
	if (xp_grow((void **)&l->mem, &l->cap, l->n + 1, sizeof(*l->mem)))
		return;	/* a cache that cannot grow only costs a new analysis */
	l->mem[l->n++] = *r;
}

static void disk_path(const struct loc_locator *l, const char *key, char *path, size_t len)
{
	snprintf(path, len, "%s/%s.loc", l->dir, key);
	for (char *p = path + strlen(l->dir) + 1; *p; p++)
		if (*p == ':')
			*p = '_';
}

/* A disk entry in this version's format; -1 when absent or not ours. */
static int disk_read(const struct loc_locator *l, const char *key, struct loc_result *r)
{
	char path[4096], line[256], status[16] = "";
	unsigned int version = 0;
	uint64_t ret;
	int ok = 0;
	FILE *f;

	disk_path(l, key, path, sizeof(path));
	f = fopen(path, "re");
	if (!f)
		return -1;
	r->why[0] = r->stack[0] = '\0';
	r->nwrite_rets = r->nread_rets = r->conn_off = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "xperf-locate %u", &version) == 1)
			ok |= version == LOC_VERSION;
		sscanf(line, "status %15s", status);
		sscanf(line, "stack %15s", r->stack);
		sscanf(line, "SSL_write 0x%" SCNx64, &r->write_off);
		sscanf(line, "SSL_read 0x%" SCNx64, &r->read_off);
		sscanf(line, "conn_off %" SCNu32, &r->conn_off);
		if (sscanf(line, "SSL_write_ret 0x%" SCNx64, &ret) == 1 &&
		    r->nwrite_rets < LOC_GO_MAX_RETS)
			r->write_rets[r->nwrite_rets++] = ret;
		if (sscanf(line, "SSL_read_ret 0x%" SCNx64, &ret) == 1 &&
		    r->nread_rets < LOC_GO_MAX_RETS)
			r->read_rets[r->nread_rets++] = ret;
		if (!strncmp(line, "why ", 4))
			snprintf(r->why, sizeof(r->why), "%s", line + 4);
	}
	fclose(f);
	if (!ok || (strcmp(status, "found") && strcmp(status, "failed")))
		return -1;
	r->status = strcmp(status, "found") ? LOC_FAILED : LOC_FOUND;
	if (r->status == LOC_FOUND &&
	    (!r->write_off || !r->read_off ||
	     (!strcmp(r->stack, "go") && (!r->nwrite_rets || !r->nread_rets))))
		return -1;
	return 0;
}

static void disk_write(const struct loc_locator *l, const struct loc_result *r)
{
	char path[4096], buf[2048];
	int n;

	if (xp_mkdir_p(l->dir))
		return;
	disk_path(l, r->key, path, sizeof(path));
	n = snprintf(buf, sizeof(buf),
		     "xperf-locate %d\nkey %s\nstatus %s\nstack %s\nSSL_write 0x%" PRIx64
		     "\nSSL_read 0x%" PRIx64 "\nconn_off %" PRIu32 "\nwhy %s\n",
		     LOC_VERSION, r->key, loc_status_names[r->status], r->stack, r->write_off,
		     r->read_off, r->conn_off, r->why);
	for (unsigned int i = 0; i < r->nwrite_rets && n > 0 && (size_t)n < sizeof(buf); i++)
		n += snprintf(buf + n, sizeof(buf) - n, "SSL_write_ret 0x%" PRIx64 "\n", r->write_rets[i]);
	for (unsigned int i = 0; i < r->nread_rets && n > 0 && (size_t)n < sizeof(buf); i++)
		n += snprintf(buf + n, sizeof(buf) - n, "SSL_read_ret 0x%" PRIx64 "\n", r->read_rets[i]);
	if (n > 0 && (size_t)n < sizeof(buf))
		xp_write_file_atomic(path, buf, (size_t)n);	/* a cache: a failed write costs a re-analysis */
}

int loc_locator_file(struct loc_locator *l, int fd, struct loc_result *out)
{
	const struct loc_result *hit;
	uint64_t t0 = xp_now_ns(CLOCK_MONOTONIC);
	struct loc_elf_view v;
	struct stat st;
	void *img;

	memset(out, 0, sizeof(*out));
	if (fstat(fd, &st) || st.st_size <= 0) {
		snprintf(out->why, sizeof(out->why), "cannot stat the file");
		return -EINVAL;
	}
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (img == MAP_FAILED) {
		snprintf(out->why, sizeof(out->why), "cannot map the file: %s", strerror(errno));
		return -errno;
	}
	make_key(loc_elf_view_open(&v, img, (size_t)st.st_size) ? NULL : &v, &st, out->key,
		 sizeof(out->key));
	hit = mem_find(l, out->key);
	if (hit) {
		*out = *hit;
		out->from_cache = true;
	} else if (l->dir && !disk_read(l, out->key, out)) {
		out->from_cache = true;
		mem_add(l, out);
	} else {
		loc_image(img, (size_t)st.st_size, out);
		mem_add(l, out);
		if (l->dir && out->status != LOC_NONE)
			disk_write(l, out);
	}
	munmap(img, (size_t)st.st_size);
	out->ms = (double)(xp_now_ns(CLOCK_MONOTONIC) - t0) / 1e6;
	return 0;
}
