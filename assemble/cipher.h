/* SPDX-License-Identifier: MIT */
/*
 * cipher.h - LLM exchanges timed from socket events alone (the ciphertext
 * tier, for TLS stacks without usable symbols): on a connection to an LLM
 * host (SNI or peer matched against fnmatch patterns), after the TLS
 * handshake (the first send burst and the receive burst answering it),
 * every burst of sends that follows received data opens an exchange and the
 * receives after it are its response. Each receive's time stands in for a
 * token event (the gaps between them are what streaming stalls look like).
 * Nothing is decrypted: no status, model or token counts in this tier.
 */
#ifndef XPERF_ASSEMBLE_CIPHER_H
#define XPERF_ASSEMBLE_CIPHER_H

#include "assemble/turn.h"

/* A send this small right after the server's handshake flight is the client's Finished. */
#define XT_CIPHER_FINISHED_BYTES 100u

/*
 * On a new connection, small receives (TLS 1.3 session tickets: two records
 * of about 260 bytes) read within this time of the first request's end come
 * before the answer and are not part of it; if nothing else follows, they
 * were the answer after all. Failure mode: a server that sends its tickets
 * later than that (seen on this 2-core machine with 4 busy loops beside it:
 * the second ticket read 54 ms after the request) has that ticket taken for
 * the answer's start, and the ciphertext TTFT comes out early. Until an
 * answer comes beyond what was set aside, the next exchange on the
 * connection sets receives aside as the first does (within this time of the
 * first request, up to this size of its own): curl --http2 writes its
 * request's HEADERS and DATA 0.1 ms apart and the tickets may be read
 * between them; the DATA then opens the exchange, whose answer begins with
 * the server's SETTINGS and the response HEADERS (3 records, 6 socket reads:
 * more than a head may hold). Taken for its first token, TTFT came out
 * 0.4 ms instead of 300. Failure mode (that race, 10 of 18 runs here): the
 * HEADERS with the tickets is counted as a non-LLM request, and the exchange
 * starts at the DATA, 0.1 ms late. A rule by time (a send soon after the
 * request's last one continues it) merged real probes: on localhost a Bun
 * agent sent its next request 0.35 ms after a HEAD probe.
 */
#define XT_CIPHER_TICKET_NS 50000000ull
#define XT_CIPHER_TICKET_BYTES 1200u

/*
 * Control records. Once the request is out, a send of at most
 * XT_CIPHER_CONTROL_BYTES on the wire is held, not taken for the next
 * request: HTTP/2 clients send control frames while the answer streams
 * (WINDOW_UPDATE, a 35-byte record: Go's net/http2 after every 4 KiB read,
 * nghttp2, Rust's h2 and Python's h2 after half a window; PING ACK, 39;
 * RST_STREAM, 35; the SETTINGS ACK answering a fresh connection's server
 * SETTINGS, 31, before the answer). Taken for requests, each ended the
 * exchange and opened a bogus one: a Go client's two 300 KB answers came
 * out as 150 exchanges. So is one sent more than XT_CIPHER_REQ_JOIN_NS after
 * the request's last record, before any receive: a keepalive PING while the
 * client waits (Go's net/http2 with a ReadIdleTimeout of 150 ms against a
 * 400 ms think: PINGs 150 and 300 ms after the request; taken for the
 * request's end, TTFT came out 150 ms). A receive after held sends makes
 * them control records (counted in the exchange: xperf.ciphertext.control_records, with the
 * client's close_notify, 24 bytes). A larger send with no receive since
 * makes the last held send, if within XT_CIPHER_REQ_JOIN_NS before it, the
 * next request's first record (an HTTP/2 HEADERS frame of indexed headers
 * is 39 bytes: Go's second request, its DATA 8 us later), the others
 * control records. Failure modes: a whole request this small (at most 42
 * bytes of HTTP/1.1 plaintext, a request line and a Host header: no HTTP
 * client sends that little; an HTTP/2 GET or HEAD of indexed headers and no
 * body on a connection already used) is merged, with its answer, into the
 * open exchange and counted as a control record; a control record sent
 * less than XT_CIPHER_REQ_JOIN_NS before a request whose first record is
 * larger moves its start up to that much earlier; a HEADERS record sent
 * more than that before its DATA (the client preempted between two
 * writes) is a control record and the request starts at its DATA; a
 * request's last record as small (an empty DATA frame ending the stream,
 * a chunked body's last chunk) sent more than that after the one before is
 * a control record and the request ends before it. HTTP/2
 * streams multiplexed on one connection cannot be told apart: a request
 * sent while an answer streams ends that exchange, and the rest of its
 * answer goes to the new one.
 */
#define XT_CIPHER_CONTROL_BYTES 64u
#define XT_CIPHER_REQ_JOIN_NS 2000000ull

/*
 * The response head in records of its own. A provider may send the head at
 * once and the first token much later (a keep-alive connection, HTTP/2 with
 * its HEADERS frame and control frames): the first records of an answer are
 * its head when they all came within XT_CIPHER_HEAD_NS of the request's end,
 * hold at most XT_CIPHER_HEAD_BYTES, and the next record came after a pause
 * of at least XT_CIPHER_HEAD_PAUSE_NS and 4 times their own delay. The first
 * token is then that next record; a head riding with the first token is the
 * first token.
 */
#define XT_CIPHER_HEAD_NS 30000000ull
#define XT_CIPHER_HEAD_BYTES 4096u
#define XT_CIPHER_HEAD_PAUSE_NS 20000000ull
#define XT_CIPHER_HEAD_RECORDS 4

/*
 * The server's control records (PING, a 39-byte record; the PING ACK
 * answering a client's keepalive; SETTINGS; WINDOW_UPDATE) are no answer
 * either: after the head, the answer's leading receives, in runs of at most
 * XT_CIPHER_CONTROL_BYTES each followed by a pause of at least
 * XT_CIPHER_HEAD_PAUSE_NS, are no token; nor is, whatever the pause after
 * it, a receive that small opening such a run right after held sends, with
 * no receive between: it is their acknowledgement (the PING ACK; a model's
 * first event is larger: an HTTP/2 DATA frame in its record takes 31 bytes,
 * and an SSE "data:" line of JSON does not fit in the 33 left). Taken for
 * the first token, a server PING 150 ms into a 400 ms think, or the ACK of
 * the client's keepalive PING then, cut TTFT to 150 ms (one right after the
 * request went with the head or the session tickets); a keepalive's ACK
 * read 17.65 ms before the first token (a Go client on a loaded machine)
 * cut it by that much. Failure modes: a server's own control record
 * received less than XT_CIPHER_HEAD_PAUSE_NS before the first token, or any
 * after the answer's first XT_CIPHER_LEAD_RECORDS reads (a record may take
 * two: 8 PINGs in a long think), is taken for the first token; a first
 * token this small followed by such a pause, or read right after a control
 * record the client sent (a WINDOW_UPDATE or PING ACK, which no server
 * answers, just before it), is skipped (its next record is the first
 * token).
 *
 * Likewise at the answer's end: its trailing runs of at most
 * XT_CIPHER_CONTROL_BYTES each, each after a pause of at least
 * XT_CIPHER_HEAD_PAUSE_NS, are the connection's control records between two
 * calls (a PING or the ACK of a keepalive PING while a tool runs), not the
 * answer: it ends at the record before them, and their bytes are not its
 * own. Taken for the answer, Go's keepalive in a 400 ms pause between two
 * calls made the first answer end 755 ms after its request instead of 453.
 * Kept when nothing but the head and lead came before them. Failure mode: an
 * answer's last record this small sent that long after its last token (an
 * HTTP/2 END_STREAM frame or a chunked body's end written late, an SSE
 * "[DONE]" of 41 bytes on the wire sent late) is dropped, and the answer ends
 * at its last token.
 */
#define XT_CIPHER_LEAD_RECORDS 16

/*
 * Requests that are no model call. A model call carries a prompt; a request
 * of at most XT_CIPHER_PROBE_REQ bytes on the wire (a head with no body to
 * speak of: HEAD/GET probes, model listings, OAuth refresh) answered with at
 * most 2 records and XT_CIPHER_PROBE_RESP bytes (no stream) is counted as a
 * non-LLM request, not an exchange.
 */
#define XT_CIPHER_PROBE_REQ 640u
#define XT_CIPHER_PROBE_RESP 4096u

/*
 * Token counting (POST /v1/messages/count_tokens) carries the whole prompt,
 * as a model call does; its answer gives it away: a number, at most 2
 * records and XT_CIPHER_COUNT_RESP bytes on the wire (with the mock: 115).
 * The smallest non-streamed model answer is larger: a status line and
 * content-length (39 bytes), a message of one word (about 230 bytes of
 * JSON), the record's 22: about 290. Failure modes: a count answer behind a
 * large head (a provider's request ids and rate-limit headers over
 * HTTP/1.1, a fresh HTTP/2 connection's first HPACK literals) is still an
 * exchange; a model call refused at once with an error of at most that size
 * is counted as a non-LLM request (the mock's 429 is 226 bytes).
 */
#define XT_CIPHER_COUNT_RESP 200u

/*
 * Called with each finished exchange; the callee owns it. covered: the
 * connection's data moved inside SSL calls, so the plaintext tier has it too.
 */
typedef void (*xt_cipher_cb)(void *ctx, struct xt_exchange *e, int covered);

struct xt_cipher;

/* hosts: NULL-terminated fnmatch patterns, or NULL for every connection. */
struct xt_cipher *xt_cipher_new(const char *const *hosts, xt_cipher_cb cb, void *ctx);
/* XT_SOCK_OPEN, XT_SOCK and XT_SOCK_CLOSE events; others are ignored. */
void xt_cipher_event(struct xt_cipher *c, const struct xt_event *ev);
/*
 * The agent tgid sent the request that opens its next turn at t: an open
 * exchange of its that began before t and was quiet since (its last receive
 * before t) is over and handed on now. Without framing, an exchange on a
 * pooled connection would otherwise stay open until the connection is used
 * again or closes, after the turn it belongs to was written.
 */
void xt_cipher_settle(struct xt_cipher *c, uint32_t tgid, uint64_t t);
/* Tracing ended at t: open exchanges are handed on (cut: not answered). */
void xt_cipher_flush(struct xt_cipher *c, uint64_t t, int cut);
void xt_cipher_free(struct xt_cipher *c);

#endif /* XPERF_ASSEMBLE_CIPHER_H */
