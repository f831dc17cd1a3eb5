/* SPDX-License-Identifier: MIT */
/*
 * llm_conn.h - LLM exchanges on one connection, from its plaintext. Bytes of
 * each direction arrive in any split with the kernel time of the read or
 * write; HTTP/1.1 or HTTP/2 is recognised from the first request bytes. A
 * request whose path (and host, when host patterns are set) names an LLM API
 * opens an exchange; its response is followed as SSE/NDJSON or as one JSON
 * document (bodies decoded first when they are compressed: gzip, deflate,
 * br, zstd), and the finished exchange waits, with its timings, for the
 * caller to take it (pr_llm_conn_next) after each feed, loss or close. Requests that are no model call (HEAD/GET probes, model listings,
 * token counting, telemetry, OAuth) are counted in other_requests. Nothing but metadata is kept: bodies are parsed and dropped.
 */
#ifndef XPERF_PROTO_LLM_CONN_H
#define XPERF_PROTO_LLM_CONN_H

#include "proto/decode.h"
#include "proto/http1.h"
#include "proto/http2.h"
#include "proto/llm.h"
#include "proto/sse.h"

#define XP_LLM_MAX_PENDING 32
#define XP_LLM_BODY_MAX (8u << 20)
#define XP_LLM_DECODED_MAX (64u << 20) /* a compressed answer decoding past this is cut */

enum pr_dir { XP_DIR_REQUEST, XP_DIR_RESPONSE };

struct pr_llm_conn_cfg {
	const char *const *extra_paths; /* "SUFFIX=API" rules, NULL-terminated, or NULL */
	const char *const *hosts;       /* fnmatch patterns for the host; NULL: any host */
	int capture_payloads; /* opt-in: keep the request body and the answer's text */
};

struct pr_llm_exchange {
	struct pr_llm_call call;
	uint32_t msg;
	char host[256];
	char path[256];
	char retry_after[32];
	uint64_t req_start_ns, req_end_ns;   /* writes carrying the first/last request byte */
	uint64_t resp_start_ns, resp_end_ns; /* reads carrying the first/last response byte */
	uint64_t body_start_ns;              /* the read carrying the first response body byte */
	uint64_t req_bytes, resp_bytes;      /* body bytes as sent (compressed, when they were) */
	enum pr_coding coding[2];            /* Content-Encoding of the request and the response */
	struct pr_decoder *dec[2];           /* their decoders (NULL: identity) */
	uint64_t feed_ns;                    /* time of the bytes being decoded */
	int req_done, resp_head;
	int aborted;   /* the connection ended or the stream was reset before the end */
	int truncated; /* the capture lost bytes of this exchange */
	int streaming; /* response is SSE or NDJSON */
	struct pr_llm_exchange *next; /* finished ones, in the order they finished */
	struct pr_sse sse;
	char *body; /* request body, then a non-streamed response body */
	size_t body_len, body_cap;
	char *req_text; /* capture_payloads: the request body (cut at XP_LLM_TEXT_MAX) */
};

struct pr_llm_conn {
	const struct pr_llm_conn_cfg *cfg;
	int proto; /* 0 undecided, 1 HTTP/1.1, 2 HTTP/2, -1 not HTTP */
	char sniff[24];
	size_t sniff_len;
	struct pr_http1 h1[2];
	struct pr_http2 h2[2];
	struct pr_msg_sink sink[2];
	struct pr_llm_exchange *pending[XP_LLM_MAX_PENDING];
	uint64_t lost_bytes;
	unsigned resyncs; /* times parsing started over at a request after losing the framing */
	unsigned other_requests; /* requests to an LLM host that are no model call (probes...) */
	struct pr_llm_exchange *done, **done_tail; /* finished, not yet taken */
};

/* 1 when host matches one of the fnmatch patterns (case-insensitive); hosts NULL: any host. */
int pr_llm_host_ok(const char *const *hosts, const char *host);
/* Allocates a tracker; NULL on ENOMEM. cfg must outlive it. */
struct pr_llm_conn *pr_llm_conn_new(const struct pr_llm_conn_cfg *cfg);
/*
 * Feeds bytes of one direction seen at t_ns. 0, or -1 while the connection is
 * not parseable HTTP (it is picked up again at the next HTTP/1.1 request line:
 * tracing that attached mid-message, framing lost).
 */
int pr_llm_conn_feed(struct pr_llm_conn *c, enum pr_dir dir, const char *data, size_t len,
		     uint64_t t_ns);
/* n bytes of dir were not captured (a record cut at the cap): skipped, exchanges flagged. */
void pr_llm_conn_lost(struct pr_llm_conn *c, enum pr_dir dir, size_t n, uint64_t t_ns);
/* The connection closed at t_ns: unfinished exchanges are handed on, aborted. */
void pr_llm_conn_close(struct pr_llm_conn *c, uint64_t t_ns);
/*
 * The next finished exchange, NULL when none: the caller owns it and frees it
 * with pr_llm_exchange_free (it may keep call.token_ns, call.text and
 * req_text by setting them to NULL first).
 */
struct pr_llm_exchange *pr_llm_conn_next(struct pr_llm_conn *c);
void pr_llm_exchange_free(struct pr_llm_exchange *ex);
/* Frees the tracker and every exchange still pending or not taken. */
void pr_llm_conn_free(struct pr_llm_conn *c);

#endif /* XPERF_PROTO_LLM_CONN_H */
