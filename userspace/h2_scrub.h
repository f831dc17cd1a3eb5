/* SPDX-License-Identifier: MIT */
/*
 * h2_scrub.h - HTTP/2 header blocks out of captured payloads.
 *
 * HPACK codes header values (Huffman, references to a per-connection
 * table), so no text redactor can see a secret in them: the `:path` query
 * (?key=), an api key header, a cookie. In an HTTP/2 connection's captured
 * payload (--capture-payloads), the payload of every HEADERS, PUSH_PROMISE
 * and CONTINUATION frame is zeroed; frame headers and DATA frames (the
 * bodies the option is for) are kept. The headers themselves reach the turn
 * files decoded and redacted (url.path, lib/secrets.h).
 *
 * A connection is HTTP/2 from its client preface (the write stream's first
 * bytes; its read stream then too), or, met in the middle (attach), from a
 * binary record that frames tile exactly. Its frames are followed across
 * records by stream position; after bytes lost (a truncated call) the next
 * record that frames tile exactly places them again, and a record that
 * cannot be placed is withheld whole.
 */
#ifndef XPERF_USERSPACE_H2_SCRUB_H
#define XPERF_USERSPACE_H2_SCRUB_H

#include <stddef.h>
#include <stdint.h>

enum xpc_h2_verdict {
	XPC_H2_PLAIN,		/* not HTTP/2: the HTTP/1 redactor's (userspace/redact.h) */
	XPC_H2_SCRUBBED,	/* HTTP/2 frames, header blocks zeroed */
	XPC_H2_WITHHELD,	/* HTTP/2 whose frames cannot be placed: write none of it */
};

struct xpc_h2_scrub;

/* NULL on ENOMEM. */
struct xpc_h2_scrub *xpc_h2_scrub_new(void);
void xpc_h2_scrub_free(struct xpc_h2_scrub *s);

/*
 * One record of connection (tgid, ssl): len bytes at stream position pos of
 * direction dir (0 write, 1 read), zeroed in place where they belong to a
 * header block; *zeroed: how many (set for XPC_H2_SCRUBBED).
 */
enum xpc_h2_verdict xpc_h2_scrub(struct xpc_h2_scrub *s, uint32_t tgid, uint64_t ssl, int dir,
			       uint64_t pos, unsigned char *buf, size_t len, size_t *zeroed);

/* The connection ended (SSL_free): its state goes. */
void xpc_h2_scrub_end(struct xpc_h2_scrub *s, uint32_t tgid, uint64_t ssl);

#endif /* XPERF_USERSPACE_H2_SCRUB_H */
