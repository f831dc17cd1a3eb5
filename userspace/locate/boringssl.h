/* SPDX-License-Identifier: MIT */
/*
 * boringssl.h - find SSL_write and SSL_read of a BoringSSL linked into a
 * stripped executable (Bun and `bun build --compile` output), by analysis
 * that does not depend on a version's bytes or offsets:
 *
 *  1. BoringSSL reports errors with OPENSSL_PUT_ERROR(SSL, reason), a call
 *     ERR_put_error(ERR_LIB_SSL, [0,] reason, __FILE__, __LINE__); the file
 *     name ".../ssl/ssl_lib.cc" stays in .rodata when symbols are stripped.
 *  2. Code loads that string's address (lea rip-relative in PIE code, mov
 *     of an immediate in non-PIE code: both decoded). From each load the
 *     following instructions are decoded up to the call, tracking the
 *     immediates put in the argument registers: the library (edi) and the
 *     reason (the register before the file's one, so the four- and the
 *     five-argument ERR_put_error of older and newer BoringSSL both work).
 *     Only sites whose call goes to the most common target (ERR_put_error)
 *     and whose library is ERR_LIB_SSL count.
 *  3. Each site's function comes from .eh_frame, or from the int3 layout
 *     (func_bounds.h). Functions are told apart by the reason codes they
 *     raise, which are public API numbers of include/openssl/ssl.h, and by
 *     whom they call: SSL_write raises UNINITIALIZED, SSL_HANDSHAKE_FAILURE
 *     and BAD_LENGTH; ssl_read_impl UNINITIALIZED and SSL_HANDSHAKE_FAILURE
 *     but not BAD_LENGTH; SSL_read raises SHOULD_NOT_HAVE_BEEN_CALLED (its
 *     QUIC guard) and calls ssl_read_impl. Each must match exactly one
 *     function, or nothing is located and the reason says which did not.
 */
#ifndef XPERF_USERSPACE_LOCATE_BORINGSSL_H
#define XPERF_USERSPACE_LOCATE_BORINGSSL_H

#include <stddef.h>
#include <stdint.h>

#include "userspace/locate/elf_view.h"

/* A function found: its virtual address and file offset (for uprobes; locate.h names it). */
struct loc_located_fn {
	uint64_t addr;
	uint64_t offset;
};

struct loc_boringssl_found {
	struct loc_located_fn write, read;
	const char *bounds;	/* how functions were delimited (func_bounds.h) */
	unsigned int sites;	/* error calls naming ssl_lib.cc that were decoded */
};

/*
 * Analyze v. Returns 1 and fills *out when both functions were found, 0
 * when the file has no BoringSSL (no ssl_lib.cc in .rodata, which is all
 * most files cost, or no error call passing it), -1 when it has one that
 * could not be resolved (why says which step failed). why gets one line.
 */
int loc_boringssl_locate(const struct loc_elf_view *v, struct loc_boringssl_found *out, char *why,
			 size_t whylen);

#endif /* XPERF_USERSPACE_LOCATE_BORINGSSL_H */
