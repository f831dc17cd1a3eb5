/* SPDX-License-Identifier: MIT */
/*
 * redact.h - credentials out of captured HTTP before anything is kept.
 * The values of headers whose name is a secret's (lib/secrets.h:
 * Authorization, Proxy-Authorization, x-api-key, x-goog-api-key, Cookie,
 * Set-Cookie, x-auth-token, ...) are replaced by XPC_REDACTED, and so are
 * the values of such query parameters in a request line (?key=, ?api_key=),
 * in HTTP/1.x header blocks. HTTP/2 header blocks (HPACK) are zeroed whole
 * instead (h2_scrub.h). Pure functions: no I/O, no state.
 */
#ifndef XPERF_USERSPACE_REDACT_H
#define XPERF_USERSPACE_REDACT_H

#include <stdbool.h>
#include <stddef.h>

#define XPC_REDACTED "[redacted]"

/* Whether a header name (len bytes, any case) carries a credential. */
bool xpc_redact_header_name(const char *name, size_t len);

/*
 * Copy len bytes of HTTP/1.x text from in to out (out_cap bytes), with the
 * value of every credential header line replaced by XPC_REDACTED. Header
 * lines are recognised anywhere a line starts (so a header block split
 * across reads or preceded by a body is still covered); a credential
 * header cut by the end of `in` is redacted to the end. Returns the bytes
 * written (never more than out_cap; the output is cut there), and sets
 * *n_redacted to the number of values replaced when it is not NULL.
 */
size_t xpc_redact_http1(const char *in, size_t len, char *out, size_t out_cap,
		       size_t *n_redacted);

#endif /* XPERF_USERSPACE_REDACT_H */
