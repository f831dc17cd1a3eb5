/* SPDX-License-Identifier: MIT */
/*
 * rustls.h - the plaintext boundary of rustls (0.20: CommonState with a
 * RecordLayer of boxed MessageEncrypter/MessageDecrypter) linked
 * into a stripped Rust executable, found by analysis of its panic
 * locations and call graph, no version's bytes or offsets:
 *
 *  1. A panic site keeps a core::panic::Location {file: &str, line, col}
 *     (.data.rel.ro, or the addend of its R_X86_64_RELATIVE relocation
 *     when the linker left the field 0) whose file is the crate's source
 *     path, ".../rustls-X.Y.Z/src/record_layer.rs": stripping keeps both.
 *     The record layer's `message_encrypter.encrypt(plain, seq).unwrap()`
 *     is one; it is inlined into the two CommonState functions that seal
 *     records: send_appdata_encrypt (application data) and
 *     send_msg_encrypt (handshake messages, alerts). These are the
 *     functions (.eh_frame bounds) that load that Location's address
 *     (or, where send_single_fragment stayed a function, its callers).
 *  2. Both send a close_notify through send_msg when sequence numbers
 *     run out, and send_msg calls send_msg_encrypt: the one of the two
 *     that a common callee calls back is send_msg_encrypt; the other is
 *     send_appdata_encrypt(&mut CommonState, &[u8], Limit) -> usize, the
 *     write boundary (rdi: the connection, rsi/rdx: the plaintext, rax:
 *     bytes taken).
 *  3. The read boundary take_received_plaintext(&mut CommonState,
 *     Payload) queues each decrypted application-data record on the same
 *     kind of VecDeque<Vec<u8>> the two encrypt functions queue records
 *     on: it calls their shared queue helpers (the deque's grow, the
 *     Vec's drop), sends nothing itself, and is called by the traffic
 *     states, which do send (key updates, alerts). It must be the only
 *     such function (rdi: the connection, rsi: the Vec by reference).
 * One connection id serves both directions: not the CommonState's address
 * (a Rust value moves: hyper moves its connection after the HTTP/2
 * preface) but that of the record layer's boxed MessageEncrypter, a heap
 * object that stays put: send_appdata_encrypt loads the Box<dyn> from its
 * CommonState argument, {data, vtable}, and calls the vtable's encrypt;
 * decoding it gives the Box's offset in CommonState (rustls.c step 4). Anything not
 * found exactly once locates nothing, with the step in `why`.
 */
#ifndef XPERF_USERSPACE_LOCATE_RUSTLS_H
#define XPERF_USERSPACE_LOCATE_RUSTLS_H

#include <stddef.h>
#include <stdint.h>

#include "userspace/locate/boringssl.h"
#include "userspace/locate/elf_view.h"

struct loc_rustls_found {
	struct loc_located_fn write, read;	/* send_appdata_encrypt, take_received_plaintext */
	unsigned int sites;			/* functions loading a record_layer.rs Location */
	/* 1 + offset of the boxed encrypter in CommonState; 0: not found (the CommonState's
	 * address is the id) */
	uint32_t conn_off;
};

/*
 * Analyze v. 1 and *out when both were found, 0 when the file has no
 * rustls (no Location naming rustls's record_layer.rs: a memmem of
 * .rodata for most files), -1 when it has one that could not be resolved
 * (why says which step failed).
 */
int loc_rustls_locate(const struct loc_elf_view *v, struct loc_rustls_found *out, char *why,
		      size_t whylen);

#endif /* XPERF_USERSPACE_LOCATE_RUSTLS_H */
