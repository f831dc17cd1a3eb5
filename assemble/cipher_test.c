/* SPDX-License-Identifier: MIT */
/*
 * cipher_test.c - the ciphertext tier (cipher.h) on socket event sequences
 * recorded from real clients (xperf-bpf --raw, times in microseconds after
 * the connect).
 */
#include <stdlib.h>

#include "assemble/cipher.h"
#include "lib/test_check.h"

#define MAX_SEEN 8

struct seen {
	struct xt_exchange *ex[MAX_SEEN];
	size_t n;
};

static void keep(void *ctx, struct xt_exchange *e, int covered)
{
	struct seen *s = ctx;

	(void)covered;
	if (s->n < MAX_SEEN)
		s->ex[s->n++] = e;
	else
		free(e);
}

/* One socket record: microseconds, bytes; > 0 sent, < 0 received. */
struct rec {
	uint64_t us;
	int bytes;
};

static void replay(struct xt_cipher *c, const struct rec *r, size_t n)
{
	struct xt_event ev = { .kind = XT_SOCK_OPEN, .ts_ns = 1000, .tgid = 7, .tid = 7,
			       .conn = 1, .host = "localhost" };

	xt_cipher_event(c, &ev);
	ev.kind = XT_SOCK;
	ev.host = NULL;
	for (size_t i = 0; i < n; i++) {
		ev.ts_ns = r[i].us * 1000;
		ev.dir = r[i].bytes > 0 ? XT_WRITE : XT_READ;
		ev.len = (uint32_t)abs(r[i].bytes);
		xt_cipher_event(c, &ev);
	}
}

/*
 * curl --http2, a fresh connection to clients/h2_head_server.py (syscall
 * hooks, so each TLS record is read as a 5-byte header and its body): the
 * request (preface, HEADERS, DATA), then the two session tickets and the
 * server's SETTINGS, which the client ACKs (31 bytes) 10 ms after the
 * request went out and before the answer; the response HEADERS at once, the
 * first token 300 ms later. The SETTINGS ACK is no request of its own: the
 * exchange ends its request at 11.958 ms (its start, 11.941 ms: the 80 and
 * 86 bytes sent right after the server flight pass for the client's
 * Finished, cipher.h) and its first token is at 324.241 ms.
 */
static const struct rec h2_fresh[] = {
	{ 1896, 517 },	 { 11019, -5 },	 { 11023, -122 }, { 11198, -5 },  { 11201, -1 },
	{ 11203, -5 },	 { 11206, -32 }, { 11217, -5 },	  { 11220, -876 }, { 11684, -5 },
	{ 11687, -281 }, { 11731, -5 },	 { 11734, -69 },  { 11798, 80 },   { 11886, 86 },
	{ 11941, 106 },	 { 11958, 124 }, { 22475, -5 },	  { 22480, -250 }, { 22590, -5 },
	{ 22593, -250 }, { 22608, -5 },	 { 22611, -68 },  { 22666, 31 },   { 22684, -5 },
	{ 22687, -26 },	 { 22692, -5 },	 { 22695, -41 },  { 324241, -5 },  { 324246, -288 },
	{ 332360, -5 },	 { 332378, -151 }, { 342796, -5 }, { 342800, -151 }, { 376257, -5 },
	{ 376276, -201 },
	/* the keep-alive request and its answer */
	{ 376541, 70 },	 { 376558, 124 }, { 377141, -5 }, { 377144, -28 }, { 677615, -5 },
	{ 677619, -288 }, { 689006, -5 }, { 689010, -151 },
};

static void test_h2_settings_ack(void)
{
	struct seen s = { 0 };
	struct xt_cipher *c = xt_cipher_new(NULL, keep, &s);

	replay(c, h2_fresh, sizeof(h2_fresh) / sizeof(h2_fresh[0]));
	xt_cipher_flush(c, 700000000ull, 0);
	CHECK(s.n == 2);
	for (size_t i = 0; i < s.n; i++)
		CHECK(!s.ex[i]->probe && s.ex[i]->answered);
	if (s.n == 2) {
		const struct xt_exchange *e = s.ex[0];

		CHECK(e->req_start_ns == 11941000ull && e->req_end_ns == 11958000ull);
		CHECK(e->call.n_tokens > 0 && e->call.token_ns[0] == 324241000ull);
		CHECK(s.ex[1]->req_start_ns == 376541000ull);
		CHECK(s.ex[1]->call.n_tokens > 0 && s.ex[1]->call.token_ns[0] == 677615000ull);
	}
	for (size_t i = 0; i < s.n; i++) {
		pr_llm_call_free(&s.ex[i]->call);
		free(s.ex[i]);
	}
	xt_cipher_free(c);
}

int main(void)
{
	test_h2_settings_ack();
	return test_failures != 0;
}
