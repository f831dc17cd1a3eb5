/* SPDX-License-Identifier: MIT */
/*
 * cipher_test.c - the ciphertext tier (cipher.h) on socket event sequences
 * recorded from real clients (xperf-bpf --raw, times in microseconds after
 * the connect).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "assemble/cipher.h"
#include "lib/test_check.h"

#define MAX_SEEN 8

struct seen {
	struct xt_exchange *ex[MAX_SEEN];
	size_t n, n_over; /* kept, and handed on past MAX_SEEN */
};

static void keep(void *ctx, struct xt_exchange *e, int covered)
{
	struct seen *s = ctx;

	(void)covered;
	if (s->n < MAX_SEEN) {
		s->ex[s->n++] = e;
		return;
	}
	pr_llm_call_free(&e->call);
	free(e);
	s->n_over++;
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

static void free_seen(struct seen *s)
{
	for (size_t i = 0; i < s->n; i++) {
		pr_llm_call_free(&s->ex[i]->call);
		free(s->ex[i]);
	}
}

/* Replays r, tracing ended at end_us: the exchanges go to s. */
static void replay_all(struct seen *s, const struct rec *r, size_t n, uint64_t end_us)
{
	struct xt_cipher *c = xt_cipher_new(NULL, keep, s);

	replay(c, r, n);
	xt_cipher_flush(c, end_us * 1000, 0);
	xt_cipher_free(c);
}

/* 1 when the exchanges from s->ex[from] on are two answered model calls. */
static int two_calls(const struct seen *s, size_t from)
{
	CHECK(s->n + s->n_over == from + 2);
	for (size_t i = from; i < s->n; i++)
		CHECK(!s->ex[i]->probe && s->ex[i]->answered);
	return s->n == from + 2;
}

static void test_h2_settings_ack(void)
{
	struct seen s = { 0 };

	replay_all(&s, h2_fresh, sizeof(h2_fresh) / sizeof(h2_fresh[0]), 700000);
	if (two_calls(&s, 0)) {
		const struct xt_exchange *e = s.ex[0];

		CHECK(e->req_start_ns == 11941000ull && e->req_end_ns == 11958000ull);
		CHECK(e->call.n_tokens > 0 && e->call.token_ns[0] == 324241000ull);
		CHECK(s.ex[1]->req_start_ns == 376541000ull);
		CHECK(s.ex[1]->call.n_tokens > 0 && s.ex[1]->call.token_ns[0] == 677615000ull);
		CHECK(s.ex[0]->control_records == 1 && s.ex[1]->control_records == 0);
	}
	free_seen(&s);
}

/*
 * curl --http2 again, the server's two session tickets read between the
 * request's HEADERS (106 bytes) and DATA (124, 0.07 ms later): the HEADERS
 * with the tickets is a non-LLM request (the failure mode, cipher.h on the
 * tickets), the exchange starts at the DATA and sets the server's SETTINGS
 * and the response HEADERS aside: its first token is the server's (written
 * at 315856 us after the connect; the keep-alive one at 671350). Before, the
 * SETTINGS and HEADERS were its answer's first token: TTFT 0.4 ms.
 */
static const struct rec h2_tickets_mid_request[] = {
	{ 1714, 517 }, { 3370, -5 }, { 3868, -122 }, { 4022, -5 }, { 4023, -1 }, { 4024, -5 },
	{ 4025, -32 }, { 4036, -5 }, { 4038, -876 }, { 4365, -5 }, { 4367, -281 },
	{ 4408, -5 }, { 4410, -69 }, { 4485, 80 }, { 4991, 86 }, { 5042, 106 }, { 5051, -5 },
	{ 5053, -250 }, { 5087, -5 }, { 5088, -250 }, { 5111, 124 }, { 15783, -5 },
	{ 15786, -68 }, { 15849, 31 }, { 15852, -5 }, { 15853, -26 }, { 15857, -5 },
	{ 15858, -41 }, { 316751, -5 }, { 316755, -288 }, { 326815, -5 }, { 326838, -151 },
	{ 337836, -5 }, { 337840, -151 }, { 348305, -5 }, { 348328, -151 }, { 358772, -5 },
	{ 358776, -151 }, { 369680, -5 }, { 369684, -151 }, { 369729, -5 }, { 369754, -201 },
	/* the keep-alive request and its answer */
	{ 370127, 70 }, { 370666, 124 }, { 370993, -5 }, { 370996, -28 }, { 671591, -5 },
	{ 671595, -288 }, { 682086, -5 }, { 682090, -151 }, { 694094, -5 }, { 694099, -151 },
	{ 703352, -5 }, { 703356, -151 }, { 713948, -5 }, { 713952, -151 }, { 724328, -5 },
	{ 724332, -151 }, { 724453, -5 }, { 724454, -201 },
};

static void test_h2_tickets_mid_request(void)
{
	struct seen s = { 0 };
	const size_t n = sizeof(h2_tickets_mid_request) / sizeof(h2_tickets_mid_request[0]);

	replay_all(&s, h2_tickets_mid_request, n, 800000);
	CHECK(s.n > 0 && s.ex[0]->probe && s.ex[0]->req_bytes == 106);
	if (two_calls(&s, 1)) {
		const struct xt_exchange *e = s.ex[1];

		CHECK(e->req_start_ns == 5111000ull && e->control_records == 1);
		CHECK(e->call.n_tokens > 0 && e->call.token_ns[0] == 316751000ull);
		CHECK(s.ex[2]->req_start_ns == 370127000ull);
		CHECK(s.ex[2]->call.n_tokens > 0 && s.ex[2]->call.token_ns[0] == 671591000ull);
	}
	free_seen(&s);
}

/*
 * PINGs while the client waits for an answer due 400 ms after its request:
 * the stripped Go client (tests/tls/client_llm.go PORT CA h2 2) against
 * demo/clients/h2_head_server.py (HEADERS and the first token together),
 * socket tracepoints. h2_server_pings: the server PINGs (39 bytes) right
 * after reading each request and 150 ms later, the client ACKs each (39).
 * h2_keepalive_pings: the client PINGs after 150 ms without a frame read
 * (ReadIdleTimeout), twice per wait, the server ACKs each at once. The
 * provider's log, microseconds after the connect: first tokens written at
 * 406371 and 859971 (server pings), 417422 and 876085 (keepalive). Before
 * the server's control records were skipped (cipher.h), the PINGs 150 ms
 * in were the first tokens; before small sends were held while waiting,
 * the keepalive's second request ended at its first PING.
 */
static const struct rec h2_server_pings[] = {
	{ 1194, 275 },	 { 2602, -576 },  { 2825, -817 },   { 3154, 80 },    { 3298, 86 },
	{ 3395, 94 },	 { 3425, 131 },	  { 3672, -255 },   { 3802, -255 },  { 4919, -73 },
	{ 5006, 31 },	 { 5224, -31 },	  { 5750, -39 },    { 5775, 39 },    { 156308, -39 },
	{ 156369, 39 },	 { 406556, -317 }, { 417441, -156 }, { 427577, -156 }, { 437756, -156 },
	{ 447914, -156 }, { 458189, -362 }, { 458310, 39 },  { 458998, 131 }, { 459491, -39 },
	{ 459508, 39 },	 { 610002, -39 },  { 610048, 39 },   { 860122, -304 }, { 870563, -156 },
	{ 880793, -156 }, { 891012, -156 }, { 901269, -156 }, { 911619, -362 },
};

static const struct rec h2_keepalive_pings[] = {
	{ 743, 275 },	 { 8704, -576 },  { 9087, -817 },   { 9557, 80 },    { 9817, 86 },
	{ 10086, 94 },	 { 10140, 131 },  { 11784, -510 },  { 15620, -73 },  { 15684, 31 },
	{ 16214, -31 },	 { 166832, 39 },  { 167456, -39 },  { 318118, 39 },  { 318901, -39 },
	{ 417625, -317 }, { 428657, -156 }, { 439017, -156 }, { 449777, -156 }, { 463917, -156 },
	{ 474190, -156 }, { 474424, -206 }, { 474608, 39 },  { 474620, 131 }, { 625486, 39 },
	{ 626019, -39 },  { 777095, 39 },  { 777631, -39 },  { 876245, -304 }, { 886929, -156 },
	{ 897440, -156 }, { 907741, -156 }, { 918139, -156 }, { 928798, -362 },
};

/*
 * The keepalive client again, with 400 ms between its two calls (a tool
 * runs): it PINGs 150 and 300 ms into that pause, the server ACKs at once.
 * The provider's log: the first answer's end written at 458309 us, the
 * second request read at 859524. Before the answer's trailing control runs
 * were dropped (cipher.h), the first answer ended at the last ACK: 761137.
 */
static const struct rec h2_keepalive_pause[] = {
	{ 511, 275 },	   { 2149, -576 },    { 2442, -817 },	 { 2768, 80 },	    { 2879, 86 },
	{ 2940, 94 },	   { 2975, 131 },     { 3333, -510 },	 { 5613, -104 },    { 5672, 31 },
	{ 156533, 39 },	   { 157272, -39 },   { 307954, 39 },	 { 308563, -39 },   { 406235, -317 },
	{ 417215, -156 },  { 427551, -156 },  { 437840, -156 },	 { 448084, -156 },  { 458365, -362 },
	{ 609099, 39 },	   { 609505, -39 },   { 760159, 39 },	 { 761137, -39 },   { 858775, 39 },
	{ 859399, 131 },   { 911906, 39 },    { 912451, -39 },	 { 1063038, 39 },   { 1063588, -39 },
	{ 1214386, 39 },   { 1215058, -39 },  { 1260224, -304 }, { 1270951, -156 }, { 1281333, -156 },
	{ 1291582, -156 }, { 1301866, -156 }, { 1312194, -362 },
};

static void test_h2_keepalive_between_calls(void)
{
	struct seen s = { 0 };

	replay_all(&s, h2_keepalive_pause, sizeof(h2_keepalive_pause) / sizeof(h2_keepalive_pause[0]),
		   1400000);
	if (two_calls(&s, 0)) {
		const struct xt_exchange *a = s.ex[0], *b = s.ex[1];

		CHECK(a->call.token_ns[0] == 406235000ull && a->resp_end_ns == 458365000ull);
		CHECK(a->call.n_tokens == 6 && a->resp_bytes == 510 + 104 + 2 * 39 + 317 + 4 * 156 + 362);
		CHECK(b->req_start_ns == 858775000ull && b->call.token_ns[0] == 1260224000ull);
		CHECK(b->resp_end_ns == 1312194000ull && b->call.n_tokens == 6);
	}
	free_seen(&s);
}

/* Replays r: two calls, each request's end and first token as given, its PINGs control records. */
static void check_pings(const struct rec *r, size_t n, const uint64_t req_end_us[2],
			const uint64_t first_us[2], const unsigned control[2])
{
	struct seen s = { 0 };

	replay_all(&s, r, n, 1000000);
	if (two_calls(&s, 0)) {
		for (size_t i = 0; i < 2; i++) {
			const struct xt_exchange *e = s.ex[i];

			CHECK(e->req_end_ns == req_end_us[i] * 1000 &&
			      e->control_records == control[i]);
			CHECK(e->call.n_tokens > 0 && e->call.token_ns[0] == first_us[i] * 1000);
		}
	}
	free_seen(&s);
}

static void test_h2_pings_while_waiting(void)
{
	check_pings(h2_server_pings, sizeof(h2_server_pings) / sizeof(h2_server_pings[0]),
		    (const uint64_t[]){ 3425, 458998 }, (const uint64_t[]){ 406556, 860122 },
		    (const unsigned[]){ 3, 2 });
	check_pings(h2_keepalive_pings, sizeof(h2_keepalive_pings) / sizeof(h2_keepalive_pings[0]),
		    (const uint64_t[]){ 10140, 474620 }, (const uint64_t[]){ 417625, 876245 },
		    (const unsigned[]){ 3, 2 });
}

/* The records of a recorded connection (testdata/cipher_*.txt: "US BYTES" lines). */
static struct rec *load(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	struct rec *r = NULL;
	size_t cap = 0;
	char line[256];

	*n = 0;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		struct rec x;

		if (line[0] == '#' || sscanf(line, "%" SCNu64 " %d", &x.us, &x.bytes) != 2)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 1024;
			struct rec *nr = realloc(r, cap * sizeof(*r));

			if (!nr)
				break;
			r = nr;
		}
		r[(*n)++] = x;
	}
	fclose(f);
	return r;
}

/*
 * A Go client's two long streamed answers on one HTTP/2 connection
 * (testdata/cipher_go_h2_long.txt, its header says what each record is).
 * Its WINDOW_UPDATEs and PING ACKs in mid-stream are control records, not
 * requests: two exchanges (before XT_CIPHER_CONTROL_BYTES held them: 150),
 * each answer to its end; the second request starts at its 39-byte HEADERS
 * record, not at its DATA. Against the provider's log: each first token
 * read 0.2-0.3 ms after its write, each answer's end 0.7-0.8 ms after.
 */
static void test_h2_control_frames_mid_stream(void)
{
	struct seen s = { 0 };
	size_t n;
	struct rec *r = load("assemble/testdata/cipher_go_h2_long.txt", &n);

	CHECK(r && n == 767);
	if (r)
		replay_all(&s, r, n, 2000000);
	if (two_calls(&s, 0)) {
		const struct xt_exchange *a = s.ex[0], *b = s.ex[1];

		CHECK(a->req_start_ns == 2554000ull && a->call.token_ns[0] == 305129000ull);
		CHECK(a->resp_end_ns == 944768000ull && a->control_records == 77);
		CHECK(b->req_start_ns == 944922000ull && b->req_end_ns == 944930000ull);
		CHECK(b->req_bytes == 39 + 131 && b->call.token_ns[0] == 1245945000ull);
		CHECK(b->resp_end_ns == 1887493000ull && b->control_records == 76);
	}
	free_seen(&s);
	free(r);
}

int main(void)
{
	test_h2_settings_ack();
	test_h2_tickets_mid_request();
	test_h2_control_frames_mid_stream();
	test_h2_pings_while_waiting();
	test_h2_keepalive_between_calls();
	return test_failures != 0;
}
