/* SPDX-License-Identifier: MIT */
/*
 * locate.h - the function locator: TLS functions of executables without
 * symbols, found by analysis (boringssl.h: BoringSSL in Bun; gopclntab.h:
 * Go's crypto/tls), cached per file identity.
 *
 * Identity: the GNU build-id when the file has one (a `bun build
 * --compile` output shares its runtime's build-id, and its code: one
 * analysis serves every app built with that Bun), else (dev, inode, size,
 * mtime). A file replaced on disk (an agent's self-update) is a new inode
 * and, normally, a new build-id: it is analyzed again on its next exec,
 * while processes still running the old file keep its probes.
 *
 * Cache: in memory for the run, and on disk (one small text file per
 * identity, written atomically, mode 0600, in a 0700 directory) so the
 * next run skips the analysis. A cache entry is a hint, not a trust: what
 * it names is self-checked at run time like a fresh analysis.
 */
#ifndef XPERF_USERSPACE_LOCATE_LOCATE_H
#define XPERF_USERSPACE_LOCATE_LOCATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "userspace/locate/boringssl.h"
#include "userspace/locate/gopclntab.h"
#include "userspace/locate/rustls.h"

/* Bump when the analysis changes what it finds: older disk entries are ignored. */
#define LOC_VERSION 4

enum loc_status {
	LOC_NONE = 0,	/* no stack the locator knows (e.g. libc) */
	LOC_FOUND = 1,	/* functions below */
	LOC_FAILED = 2,	/* a known stack whose functions could not be resolved: why */
};
/* Their words in the disk cache and xperf-locate's output: "none", "found", "failed". */
extern const char *const loc_status_names[];

struct loc_result {
	enum loc_status status;
	char stack[16];		/* "boringssl", "go" (crypto/tls) or "rustls" */
	uint64_t write_off, read_off;	/* file offsets of SSL_write, SSL_read (Go: the
					 * entries of (*Conn).Write, (*Conn).Read; rustls:
					 * send_appdata_encrypt, take_received_plaintext) */
	/* Go: file offsets of their RET instructions (uprobes, never a uretprobe). */
	uint64_t write_rets[LOC_GO_MAX_RETS], read_rets[LOC_GO_MAX_RETS];
	unsigned int nwrite_rets, nread_rets;
	uint32_t conn_off;	/* rustls: 1 + offset of the connection's id (rustls.h), 0: none */
	char key[80];		/* identity: "build-id:<hex>" or "inode:<dev>:<ino>:<size>:<mtime>" */
	char why[192];		/* FAILED/NONE: one line; FOUND: how (bounds, sites) */
	bool from_cache;	/* memory or disk */
	double ms;		/* what this call cost */
};

/*
 * Pure analysis of an ELF image in memory (fuzzed): fills status, stack,
 * offsets, why; never the key or cache fields.
 */
void loc_image(const void *img, size_t len, struct loc_result *out);

struct loc_locator;

/* cache_dir: where entries are kept on disk; NULL: memory only. NULL on ENOMEM. */
struct loc_locator *loc_locator_new(const char *cache_dir);
void loc_locator_free(struct loc_locator *l);

/*
 * Locate in the open file fd (read through mmap). Returns 0 with *out
 * filled, or -errno if the file cannot be read (out->why says so).
 */
int loc_locator_file(struct loc_locator *l, int fd, struct loc_result *out);

/* The name of r's located write (read: false) or read function, e.g. "SSL_write". */
const char *loc_fn_name(const struct loc_result *r, bool read);

/* The cache directory xperf uses: $XPERF_CACHE_DIR, else /var/cache/xperf/locate. */
const char *loc_locator_default_dir(void);

#endif /* XPERF_USERSPACE_LOCATE_LOCATE_H */
