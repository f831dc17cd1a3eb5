// SPDX-License-Identifier: MIT
/*
 * locate_check_test.c - the self-check on synthetic records: an HTTP
 * request held until its ciphertext is sent, then released in order; a
 * response passed against the socket's received bytes; a write whose
 * ciphertext never goes out, a response larger than what the socket
 * received, and garbage: each fails the file once and drops its records;
 * a connection joined mid-stream is not blamed for a body.
 */
#include <stdlib.h>
#include <string.h>

#include "userspace/locate_check.h"
#include "bpf/sock.h"
#include "bpf/tls.h"
#include "lib/test_check.h"

#define MS 1000000ull

static int released, failures;
static char failed_check[16];

static void on_release(void *ctx, const struct xk_hdr *rec)
{
	(void)ctx;
	(void)rec;
	released++;
}

static void on_failed(void *ctx, unsigned int id, const char *fn, const char *check,
		      const char *detail)
{
	(void)ctx, (void)id, (void)fn, (void)detail;
	failures++;
	strncpy(failed_check, check, sizeof(failed_check) - 1);
}

static struct xk_tls_data *tls(int dir, uint64_t ts, const char *text, uint64_t pos)
{
	static struct xk_tls_data d;
	size_t n = strlen(text);

	memset(&d, 0, sizeof(d));
	d.hdr = (struct xk_hdr){ .type = XP_EV_TLS_DATA, .tgid = 7, .tid = 8, .ts_ns = ts,
				 .size = (__u32)(offsetof(struct xk_tls_data, data) + n) };
	d.ssl = 0x1000;
	d.sock_id = dir == XP_TLS_READ ? 99 : 0;
	d.pos = pos;
	d.call_ns = ts - 1000;
	d.call_len = d.len = (__u32)n;
	d.dir = (__u8)dir;
	d.located = 1;
	memcpy(d.data, text, n);
	return &d;
}

static enum xpc_lc_verdict sock(struct xpc_locate_check *lc, int dir, uint64_t ts, uint32_t len)
{
	struct xk_sock_data s = { .hdr = { .type = XP_EV_SOCK_DATA, .size = sizeof(s), .tgid = 7,
					   .tid = 8, .ts_ns = ts },
				  .sock_id = 99, .len = len, .dir = (__u8)dir };

	return xpc_locate_check_record(lc, &s.hdr);
}

static void connect_seen(struct xpc_locate_check *lc)
{
	struct xk_sock_conn k = { .hdr = { .type = XP_EV_SOCK_CONNECT, .size = sizeof(k),
					   .tgid = 7, .tid = 8, .ts_ns = 1 },
				  .sock_id = 99 };

	CHECK(xpc_locate_check_record(lc, &k.hdr) == XPC_LC_PASS);
}

/* The file's probes went in at 5 ms. */
static uint64_t probed_at_5ms(void *ctx, unsigned int id, uint32_t tgid)
{
	(void)ctx, (void)id, (void)tgid;
	return 5 * MS;
}

static struct xpc_locate_check *fresh(void)
{
	struct xpc_lc_hooks h = { on_release, on_failed, NULL, NULL };

	released = failures = 0;
	failed_check[0] = '\0';
	return xpc_locate_check_new(&h);
}

static void test_pass(void)
{
	struct xpc_locate_check *lc = fresh();
	const char *req = "POST /v1/messages HTTP/1.1\r\nhost: x\r\n\r\n";
	const char *resp = "HTTP/1.1 200 OK\r\n\r\n";

	CHECK(xpc_locate_check_record(lc, &tls(XP_TLS_WRITE, 10 * MS, req, 0)->hdr) == XPC_LC_HOLD);
	CHECK(sock(lc, XP_SOCK_SEND, 11 * MS, 10) == XPC_LC_PASS && released == 0);
	CHECK(sock(lc, XP_SOCK_SEND, 12 * MS, (uint32_t)strlen(req) + 12) == XPC_LC_PASS);
	CHECK(released == 1 && xpc_locate_check_state(lc, 1) == XPC_LC_TRUSTED);
	CHECK(xpc_locate_check_record(lc, &tls(XP_TLS_WRITE, 13 * MS, "more", 41)->hdr) ==
	      XPC_LC_PASS);
	CHECK(sock(lc, XP_SOCK_RECV, 20 * MS, 4000) == XPC_LC_PASS);
	CHECK(xpc_locate_check_record(lc, &tls(XP_TLS_READ, 21 * MS, resp, 0)->hdr) == XPC_LC_PASS);
	CHECK(failures == 0);
	xpc_locate_check_free(lc);
}

static void test_fail(void)
{
	struct xpc_locate_check *lc = fresh();
	struct xpc_lc_counts n;

	/* The ciphertext of the request never goes out: fails at the deadline. */
	CHECK(xpc_locate_check_record(
		      lc, &tls(XP_TLS_WRITE, 10 * MS, "GET / HTTP/1.1\r\n\r\n", 0)->hdr) ==
	      XPC_LC_HOLD);
	CHECK(sock(lc, XP_SOCK_SEND, 10 * MS + XPC_LC_SEND_WINDOW_NS + 1, 5) == XPC_LC_PASS);
	CHECK(failures == 1 && !strcmp(failed_check, "socket") && released == 0);
	CHECK(xpc_locate_check_state(lc, 1) == XPC_LC_FAILED);
	CHECK(xpc_locate_check_record(lc,
				      &tls(XP_TLS_READ, 900 * MS, "HTTP/1.1 200 OK\r\n", 0)->hdr) ==
	      XPC_LC_DROP);
	xpc_locate_check_counts(lc, &n);
	CHECK(n.withheld == 2 && failures == 1);
	xpc_locate_check_free(lc);

	/* The run ends with a write whose ciphertext never went out. */
	lc = fresh();
	CHECK(xpc_locate_check_record(
		      lc, &tls(XP_TLS_WRITE, 10 * MS, "GET / HTTP/1.1\r\n\r\n", 0)->hdr) ==
	      XPC_LC_HOLD);
	xpc_locate_check_finish(lc);
	CHECK(failures == 1 && !strcmp(failed_check, "socket") && released == 0);
	xpc_locate_check_free(lc);

	/* A response bigger than what its socket received since its connect. */
	lc = fresh();
	connect_seen(lc);
	CHECK(sock(lc, XP_SOCK_RECV, 1 * MS, 10) == XPC_LC_PASS);
	CHECK(xpc_locate_check_record(
		      lc, &tls(XP_TLS_READ, 2 * MS, "HTTP/1.1 200 OK\r\n", 0)->hdr) == XPC_LC_DROP);
	CHECK(failures == 1 && !strcmp(failed_check, "socket"));
	xpc_locate_check_free(lc);

	/* Garbage on a connection seen from its connect, its ciphertext sent. */
	lc = fresh();
	connect_seen(lc);
	CHECK(xpc_locate_check_record(lc,
				      &tls(XP_TLS_WRITE, 2 * MS, "\x16\x03\x01 binary", 0)->hdr) ==
	      XPC_LC_HOLD);
	CHECK(sock(lc, XP_SOCK_SEND, 3 * MS, 100) == XPC_LC_PASS);
	CHECK(failures == 1 && !strcmp(failed_check, "http") && released == 0);
	xpc_locate_check_free(lc);
}

/* Joined mid-stream (attach): a body is not blamed, the next response start passes. */
static void test_mid_stream(void)
{
	struct xpc_locate_check *lc = fresh();

	CHECK(sock(lc, XP_SOCK_RECV, 1 * MS, 4000) == XPC_LC_PASS);
	CHECK(xpc_locate_check_record(
		      lc, &tls(XP_TLS_READ, 2 * MS, "data: {\"x\":1}\n\n", 0)->hdr) == XPC_LC_DROP);
	CHECK(failures == 0 && xpc_locate_check_state(lc, 1) == XPC_LC_UNCHECKED);
	CHECK(xpc_locate_check_record(lc,
				      &tls(XP_TLS_READ, 3 * MS, "HTTP/1.1 200 OK\r\n", 16)->hdr) ==
	      XPC_LC_PASS);
	CHECK(failures == 0 && xpc_locate_check_state(lc, 1) == XPC_LC_TRUSTED);
	xpc_locate_check_free(lc);

	/* Its connect was seen, but before the probes were in place: mid-stream too. */
	{
		struct xpc_lc_hooks h = {on_release, on_failed, probed_at_5ms, NULL};

		failures = 0;
		lc = xpc_locate_check_new(&h);
	}
	connect_seen(lc);	/* at 1 ns */
	CHECK(sock(lc, XP_SOCK_RECV, 6 * MS, 4000) == XPC_LC_PASS);
	CHECK(xpc_locate_check_record(lc, &tls(XP_TLS_READ, 7 * MS, "data: {}\n\n", 0)->hdr) ==
	      XPC_LC_DROP);
	CHECK(failures == 0 && xpc_locate_check_state(lc, 1) == XPC_LC_UNCHECKED);
	xpc_locate_check_free(lc);
}

static void test_http(void)
{
	static const char settings[] = "\x00\x00\x12\x04\x00\x00\x00\x00\x00";

	CHECK(xpc_lc_http_start((const uint8_t *)"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 24, false));
	CHECK(xpc_lc_http_start((const uint8_t *)"GET /x HTTP/1.0\r\n", 17, false));
	CHECK(!xpc_lc_http_start((const uint8_t *)"GET /x HTTP/1.1", 15, false));
	CHECK(!xpc_lc_http_start((const uint8_t *)"HTTP/1.1 200 OK\r\n", 17, false));
	CHECK(xpc_lc_http_start((const uint8_t *)"HTTP/1.1 429 Too", 16, true));
	CHECK(xpc_lc_http_start((const uint8_t *)settings, 9, true));
	CHECK(!xpc_lc_http_start((const uint8_t *)"\x00\x00\x12\x00\x00\x00\x00\x00\x01", 9, true));
}

int main(void)
{
	test_pass();
	test_fail();
	test_mid_stream();
	test_http();
	return test_failures != 0;
}
