/* SPDX-License-Identifier: MIT */
/*
 * session_test.c - the assembler over the recorded demo run (testdata/,
 * made by gen_fixture.py): turns, exchanges, TTFT, decode, token counts,
 * tool calls, exit codes and waste marks against the ground truth in
 * demo_expected.json; every file validates and is mode 0600; no API key or
 * prompt text is written; the ciphertext tier agrees with the plaintext tier
 * on exchange boundaries and TTFT within 2 ms; a cut run ends incomplete,
 * and a run cut after any line of the fixtures writes only valid files.
 */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "assemble/fixture.h"
#include "assemble/llm_span.h"
#include "assemble/session.h"
#include "theory/theory.h"
#include "lib/test_check.h"
#include "schema/validate.h"

#define MAX_EX 16
#define TD "assemble/testdata/"

struct seen { /* what the turn files say, in order */
	int turns, incomplete, n_ex, n_tools, gaps, anchored;
	uint64_t ex_start[MAX_EX], ex_end[MAX_EX], ttft[MAX_EX], decode[MAX_EX];
	uint64_t sh_start[MAX_EX], sh_end[MAX_EX], sh_ttft[MAX_EX]; /* xperf.ciphertext.* */
	int tokens[MAX_EX], out_tokens[MAX_EX];
	char tool_cmd[MAX_EX][256];
	int tool_exit[MAX_EX];
	int setups;                          /* connection_setup spans: the first's bounds */
	uint64_t setup_start, setup_end, prompt_end; /* prompt_end: the first prompt_assembly's */
	cJSON *waste; /* kind -> count */
};

static int feed(void *ctx, const struct xt_event *ev)
{
	return xt_session_event(ctx, ev);
}

static void print_error(const struct sc_verror *e, void *ctx)
{
	char buf[1024];

	(void)ctx;
	fprintf(stderr, "%s\n", sc_verror_format(e, buf, sizeof(buf)));
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static uint64_t unum(const cJSON *o, const char *k)
{
	double v = num(o, k);

	return v > 0 ? (uint64_t)v : 0;
}

static void take_span(struct seen *s, const cJSON *sp, const cJSON *spans)
{
	const char *stage = cJSON_GetObjectItem(sp, "stage")->valuestring;
	const cJSON *at = cJSON_GetObjectItem(sp, "attributes"), *c;

	if (!strcmp(stage, "llm_inference") && s->n_ex < MAX_EX) {
		s->ex_start[s->n_ex] = unum(sp, "start_ns");
		s->ex_end[s->n_ex] = unum(sp, "end_ns");
		s->ttft[s->n_ex] = unum(at, "xperf.ttft_ns");
		s->sh_start[s->n_ex] = unum(at, "xperf.ciphertext.start_ns");
		s->sh_end[s->n_ex] = unum(at, "xperf.ciphertext.end_ns");
		s->sh_ttft[s->n_ex] = unum(at, "xperf.ciphertext.ttft_ns");
		s->out_tokens[s->n_ex] = (int)num(at, "gen_ai.usage.output_tokens");
		s->tokens[s->n_ex] = cJSON_GetArraySize(cJSON_GetObjectItem(at, "xperf.token_times_ns"));
		cJSON_ArrayForEach(c, spans)
			if (num(c, "parent") == num(sp, "id") &&
			    !strcmp(cJSON_GetObjectItem(c, "stage")->valuestring, "decode"))
				s->decode[s->n_ex] = unum(c, "end_ns") - unum(c, "start_ns");
		s->n_ex++;
	} else if (!strcmp(stage, "tool_call") && s->n_tools < MAX_EX) {
		snprintf(s->tool_cmd[s->n_tools], 256, "%s",
			 cJSON_GetObjectItem(at, "process.command_line")->valuestring);
		s->tool_exit[s->n_tools++] = (int)num(at, "process.exit.code");
	} else if (!strcmp(stage, "streaming_gap")) {
		s->gaps++;
	} else if (!strcmp(stage, "connection_setup") && !s->setups++) {
		s->setup_start = unum(sp, "start_ns");
		s->setup_end = unum(sp, "end_ns");
	} else if (!strcmp(stage, "prompt_assembly") && !s->prompt_end) {
		s->prompt_end = unum(sp, "end_ns");
	}
}

/* 1 when doc's clock_anchor was taken on this boot, now (within a minute). */
static int anchored_here(const cJSON *doc)
{
	const cJSON *a = cJSON_GetObjectItem(doc, "clock_anchor");
	struct timespec mono, real;
	char boot[64] = "";
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	if (f && fgets(boot, sizeof(boot), f))
		boot[strcspn(boot, "\n")] = '\0';
	if (f)
		fclose(f);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	return a && !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(a, "boot_id")), boot) &&
	       fabs(num(a, "monotonic_ns") / 1e9 - (double)mono.tv_sec) < 60 &&
	       fabs(num(a, "realtime_ns") / 1e9 - (double)real.tv_sec) < 60;
}

/* Reads dir/turn_001.json ... in order; validates each; checks mode and privacy. */
static void read_turns(const char *dir, struct seen *s)
{
	char path[4096];

	memset(s, 0, sizeof(*s));
	s->waste = cJSON_CreateObject();
	for (int i = 1;; i++) {
		struct stat st;
		size_t len;
		const cJSON *sp, *m;

		snprintf(path, sizeof(path), "%s/turn_%03d.json", dir, i);
		if (stat(path, &st))
			break;
		CHECK((st.st_mode & 0777) == 0600);
		CHECK(sc_validate_file(path, print_error, NULL) == 0);
		char *text = test_slurp(path, &len);
		cJSON *doc = text ? cJSON_Parse(text) : NULL;

		CHECK(doc != NULL);
		CHECK(text && !strstr(text, "sk-mock") && !strstr(text, "turn 3"));
		s->turns++;
		s->incomplete += cJSON_IsFalse(cJSON_GetObjectItem(doc, "complete"));
		CHECK(num(doc, "turn_index") == i);
		s->anchored += anchored_here(doc);
		cJSON_ArrayForEach(sp, cJSON_GetObjectItem(doc, "spans"))
			take_span(s, sp, cJSON_GetObjectItem(doc, "spans"));
		cJSON_ArrayForEach(m, cJSON_GetObjectItem(doc, "waste_marks")) {
			const char *k = cJSON_GetObjectItem(m, "kind")->valuestring;
			cJSON *c = cJSON_GetObjectItem(s->waste, k);

			if (c)
				cJSON_SetNumberValue(c, c->valuedouble + 1);
			else
				cJSON_AddNumberToObject(s->waste, k, 1);
		}
		cJSON_Delete(doc);
		free(text);
	}
}

static struct xt_session *replay(struct xt_config *cfg, const char *events, int exited)
{
	struct xt_session *s = xt_session_new(cfg);

	CHECK(xt_fixture_read(events, feed, s) == 0);
	CHECK(xt_session_finish(s, 99999999999ull, exited) == 0);
	return s;
}

static void check_plain(const cJSON *truth, struct seen *p)
{
	const cJSON *ex = cJSON_GetObjectItem(truth, "exchanges"), *e, *t;
	int i = 0;

	CHECK(p->turns == num(truth, "turns") && p->incomplete == 0);
	CHECK(p->n_ex == cJSON_GetArraySize(ex));
	cJSON_ArrayForEach(e, ex) {
		if (num(e, "ttft_ms") >= 0) {
			CHECK(llabs((long long)p->ttft[i] - (long long)(num(e, "ttft_ms") * 1e6)) <= 5000000);
			CHECK(llabs((long long)p->decode[i] - (long long)(num(e, "decode_ms") * 1e6)) <=
			      5000000);
		}
		CHECK(p->tokens[i] == num(e, "tokens"));
		CHECK(num(e, "status") != 200 || p->out_tokens[i] == num(e, "output_tokens"));
		i++;
	}
	i = 0;
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(truth, "tools")) {
		CHECK(!strcmp(p->tool_cmd[i], cJSON_GetObjectItem(t, "cmd")->valuestring));
		CHECK(p->tool_exit[i] == num(t, "exit"));
		i++;
	}
	CHECK(p->n_tools == i);
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(truth, "waste"))
		CHECK(num(p->waste, t->string) == t->valuedouble);
	CHECK(cJSON_GetArraySize(p->waste) == cJSON_GetArraySize(cJSON_GetObjectItem(truth, "waste")));
	CHECK(p->gaps == 1); /* the 400 ms stall of turn 3 */
}

/* The first n lines of fixture src: a run cut in the middle. 1 when src has more. */
static int cut_fixture(const char *src, const char *out, int n)
{
	FILE *in = fopen(src, "r"), *o = fopen(out, "w");
	char *line = NULL;
	size_t cap = 0;
	int more = 0;

	while (in && o && n-- > 0 && getline(&line, &cap, in) > 0)
		fputs(line, o);
	more = in && getline(&line, &cap, in) > 0;
	free(line);
	if (in)
		fclose(in);
	if (o)
		fclose(o);
	return more;
}

/*
 * The tracer stopped after each line of fixture src in turn (a detach, a
 * SIGTERM): every turn file of every cut validates (fault kill_test once
 * wrote a streaming gap outside its decode span, its exchange cut mid-stream).
 */
static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(path);
}

static void check_every_cut(const char *tmp, const char *src, int ciphertext)
{
	char file[600], dir[512] = "/dev/shm/xperf-cut-XXXXXX", sid[32], path[600];
	struct xt_config cfg = { .out_dir = dir, .session_id = sid, .ciphertext = ciphertext };
	int more = 1, files = 0;

	/* on tmpfs when there is one: a thousand replays' fsync'ed files took 20 s on disk */
	if (!mkdtemp(dir))
		snprintf(dir, sizeof(dir), "%s/every_cut", tmp);
	snprintf(file, sizeof(file), "%s/every_cut.jsonl", dir);
	mkdir(dir, 0700);
	for (int n = 1; more; n++) {
		more = cut_fixture(src, file, n);
		snprintf(sid, sizeof(sid), "%s%d", ciphertext ? "c" : "p", n);
		struct xt_session *s = replay(&cfg, file, 0);

		for (int i = 1; i <= xt_session_stats(s).turns; i++, files++) {
			snprintf(path, sizeof(path), "%s/turn_%03d.json", xt_session_stats(s).dir, i);
			CHECK(sc_validate_file(path, print_error, NULL) == 0);
		}
		xt_session_free(s);
	}
	CHECK(files > 0);
	nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

/*
 * The plaintext fixture with the first request cut at a payload cap: its
 * record keeps the headers and `keep` bytes of the body, the rest is `lost`.
 */
static void cap_fixture(const char *out, size_t keep)
{
	FILE *in = fopen(TD "demo_plain.jsonl", "r"), *o = fopen(out, "w");
	char *line = NULL;
	size_t cap = 0;
	int done = 0;

	while (in && o && getline(&line, &cap, in) > 0) {
		cJSON *ev = done ? NULL : cJSON_Parse(line);
		const char *data = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "data"));
		const char *body = data ? strstr(data, "\r\n\r\n") : NULL;
		char *cut, *text;

		if (!body || strncmp(data, "POST ", 5)) {
			fputs(line, o);
			cJSON_Delete(ev);
			continue;
		}
		body += 4;
		cut = strndup(data, (size_t)(body - data) + keep);
		cJSON_AddNumberToObject(ev, "lost", (double)(strlen(body) - keep));
		cJSON_ReplaceItemInObject(ev, "data", cJSON_CreateString(cut));
		text = cJSON_PrintUnformatted(ev);
		fprintf(o, "%s\n", text);
		free(text);
		free(cut);
		cJSON_Delete(ev);
		done = 1;
	}
	free(line);
	if (in)
		fclose(in);
	if (o)
		fclose(o);
}

/* Fixture src copied to out line by line through put (which writes what a line becomes). */
static void rewrite_fixture(const char *src, const char *out,
			    void (*put)(const char *line, FILE *o, void *ctx), void *ctx)
{
	FILE *in = fopen(src, "r"), *o = fopen(out, "w");
	char *line = NULL;
	size_t cap = 0;

	CHECK(in && o);
	while (in && o && getline(&line, &cap, in) > 0)
		put(line, o, ctx);
	free(line);
	if (in)
		fclose(in);
	if (o)
		fclose(o);
}

/* From the first write on, that write given a call entered 100 us before it. */
static void put_from_write(const char *line, FILE *o, void *started)
{
	int *on = started;
	cJSON *ev = *on ? NULL : cJSON_Parse(line);
	const char *dir_s = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "dir"));

	if (!*on && dir_s && !strcmp(dir_s, "write")) {
		char *text;

		cJSON_AddNumberToObject(ev, "call_ns", num(ev, "ts_ns") - 100000);
		text = cJSON_PrintUnformatted(ev);
		fprintf(o, "%s\n", text);
		free(text);
		*on = 1;
	} else if (*on) {
		fputs(line, o);
	}
	cJSON_Delete(ev);
}

/*
 * An attach whose first event is a request's SSL_write record, its call
 * entered 100 us before it (the write's time): every turn file validates
 * (fault detach_test once wrote an exchange starting before its turn, the
 * session begun at the record).
 */
static void check_attach_mid_write(const char *tmp)
{
	char file[512], dir[512], path[600];
	struct xt_config cfg = { .out_dir = dir, .session_id = "midwrite" };
	int started = 0;

	snprintf(file, sizeof(file), "%s/midwrite.jsonl", tmp);
	snprintf(dir, sizeof(dir), "%s/midwrite", tmp);
	rewrite_fixture(TD "demo_plain.jsonl", file, put_from_write, &started);
	struct xt_session *s = replay(&cfg, file, 1);

	CHECK(started && xt_session_stats(s).turns > 0);
	for (int i = 1; i <= xt_session_stats(s).turns; i++) {
		snprintf(path, sizeof(path), "%s/turn_%03d.json", xt_session_stats(s).dir, i);
		CHECK(sc_validate_file(path, print_error, NULL) == 0);
	}
	xt_session_free(s);
}

/* A request cut at the cap: flagged in data_quality, its model unknown, the rest intact. */
static void check_capped(const char *tmp)
{
	char file[512], dir[512], path[600];
	struct xt_config cfg = { .out_dir = dir, .session_id = "capped" };
	struct xt_session *s;
	size_t len;
	char *text;
	cJSON *doc, *sp;
	int models = 0;

	snprintf(file, sizeof(file), "%s/capped.jsonl", tmp);
	snprintf(dir, sizeof(dir), "%s/capped", tmp);
	cap_fixture(file, 20);
	s = replay(&cfg, file, 1);
	CHECK(xt_session_stats(s).turns == 6 && xt_session_stats(s).exchanges == 7);
	snprintf(path, sizeof(path), "%s/turn_001.json", xt_session_stats(s).dir);
	xt_session_free(s);
	CHECK(sc_validate_file(path, print_error, NULL) == 0);
	text = test_slurp(path, &len);
	doc = text ? cJSON_Parse(text) : NULL;
	CHECK(num(cJSON_GetObjectItem(doc, "data_quality"), "truncated_payloads") == 1);
	cJSON_ArrayForEach(sp, cJSON_GetObjectItem(doc, "spans"))
		models += cJSON_GetObjectItem(cJSON_GetObjectItem(sp, "attributes"),
					      "gen_ai.request.model") != NULL;
	CHECK(models == 1); /* the retried request kept its model; the cut one has none */
	cJSON_Delete(doc);
	free(text);
}

/* Token times out of order (a fuzzed capture once made a 3.7e19 ns median). */
/*
 * The demo with its connect seen (the socket's connect record, begun at
 * 5.015 s, before its SNI): the first request on it gets a connection_setup
 * span from the connect to the handshake's end (the client's Finished, written
 * at 5.01858 s), cut from prompt_assembly; the retry and every later request
 * reuse the connection and get none.
 */
/* Before the first sock_open (the SNI), the connect record of its socket. */
static void put_connect(const char *line, FILE *o, void *put)
{
	int *done = put;

	if (!*done && strstr(line, "\"sock_open\"") && (*done = 1))
		fputs("{\"type\": \"sock_open\", \"ts_ns\": 5017000000, \"tgid\": 4100, "
		      "\"conn\": 77, \"call_ns\": 5015000000}\n", o);
	fputs(line, o);
}

static void check_setup(const char *tmp)
{
	char fixture[512], dir[512];
	struct xt_config cfg = { .out_dir = dir, .session_id = "setup" };
	int put = 0;
	struct seen s;

	snprintf(fixture, sizeof(fixture), "%s/setup.jsonl", tmp);
	snprintf(dir, sizeof(dir), "%s/setup", tmp);
	rewrite_fixture(TD "demo_both.jsonl", fixture, put_connect, &put);
	CHECK(put);
	struct xt_session *x = replay(&cfg, fixture, 1);

	read_turns(xt_session_stats(x).dir, &s);
	xt_session_free(x);
	CHECK(s.n_ex == 7 && s.setups == 1);
	CHECK(s.setup_start == 5015000000ull && s.setup_end == 5018580000ull); /* its Finished */
	CHECK(s.prompt_end == 5015000000ull);
	cJSON_Delete(s.waste);
}

/* A recorded connection replayed in the ciphertext tier alone, into tmp/id. */
static void replay_cipher(const char *tmp, const char *id, const char *events, struct seen *s)
{
	char dir[512];
	struct xt_config cfg = { .out_dir = dir, .session_id = id, .ciphertext = 1 };

	snprintf(dir, sizeof(dir), "%s/%s", tmp, id);
	struct xt_session *x = replay(&cfg, events, 1);

	read_turns(xt_session_stats(x).dir, s);
	xt_session_free(x);
}

/*
 * A Go client's first token read by a thread that did no socket I/O before
 * (testdata/cipher_go_thread_switch.jsonl): timed by that thread's wakeup after
 * the connection's previous I/O, 1464.122653 ms, inside the server's write of
 * it (1463.98..1464.15 ms), not by the read's return 2.5 ms later, after its
 * wait in the run queue.
 */
static void check_thread_switch(const char *tmp)
{
	struct seen s;

	replay_cipher(tmp, "switch", TD "cipher_go_thread_switch.jsonl", &s);
	CHECK(s.n_ex == 1 && s.ex_start[0] == 1053777359ull);
	CHECK(s.ex_start[0] + s.ttft[0] == 1464122653ull); /* a one-record request: start = end */
	cJSON_Delete(s.waste);
}

/*
 * cipher_h2_stream_test go-keepalive-pause under 4 busy loops
 * (testdata/cipher_go_ping_ack.jsonl): the second call's answer began with
 * the ACKs of the client's keepalive PINGs, the last read at 2336.95 ms,
 * 17.65 ms before the first token's read (2354.60 ms; timed by its wakeup,
 * 2354.51 ms, inside the mock's write of it, 2354.42..2354.77): a pause
 * shorter than the one that tells a control record, but that read answered
 * the PING sent 0.77 ms before it, so it is no token.
 */
static void check_ping_ack(const char *tmp)
{
	struct seen s;

	replay_cipher(tmp, "ack", TD "cipher_go_ping_ack.jsonl", &s);
	CHECK(s.n_ex == 2 && s.ex_start[1] == 1953722709ull);
	CHECK(s.ex_start[1] + s.ttft[1] == 2354506282ull);
	cJSON_Delete(s.waste);
}

static void check_gap_threshold(void)
{
	const uint64_t back[] = { 900, 100, 50, 10 };
	const uint64_t huge[] = { 0, 1ull << 63, UINT64_MAX - 1, UINT64_MAX };
	uint64_t min = (uint64_t)(th_rules.streaming_gap_min_ms * 1e6);

	CHECK(th_stream_gap_threshold(back, 4) == min - 1); /* a gap must be >= min */
	CHECK(th_stream_gap_threshold(huge, 4) == UINT64_MAX);
}

int main(void)
{
	const char *tmp = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
	char plain_dir[512], cipher_dir[512], both_dir[512], cut_dir[512], cut_file[512];
	char conc_dir[512];
	struct xt_config cfg = { .out_dir = plain_dir, .session_id = "demo" };
	size_t len;
	char *tx = test_slurp(TD "demo_expected.json", &len);
	cJSON *truth = tx ? cJSON_Parse(tx) : NULL;
	struct seen p, c, b, k;

	CHECK(truth != NULL);
	check_gap_threshold();
	snprintf(plain_dir, sizeof(plain_dir), "%s/plain", tmp);
	snprintf(cipher_dir, sizeof(cipher_dir), "%s/cipher", tmp);
	snprintf(cut_dir, sizeof(cut_dir), "%s/cut", tmp);
	snprintf(both_dir, sizeof(both_dir), "%s/both", tmp);
	snprintf(conc_dir, sizeof(conc_dir), "%s/concurrent", tmp);
	snprintf(cut_file, sizeof(cut_file), "%s/cut.jsonl", tmp);
	struct xt_session *s = replay(&cfg, TD "demo_plain.jsonl", 1);

	CHECK(xt_session_stats(s).turns == 6 && xt_session_stats(s).exchanges == 7);
	read_turns(xt_session_stats(s).dir, &p);
	CHECK(p.anchored == 6); /* every turn carries this boot's clock anchor, taken now */
	xt_session_free(s);
	check_plain(truth, &p);

	cfg.out_dir = cipher_dir;
	cfg.ciphertext = 1;
	s = replay(&cfg, TD "demo_cipher.jsonl", 1);
	read_turns(xt_session_stats(s).dir, &c);
	xt_session_free(s);
	CHECK(c.n_ex == p.n_ex);
	for (int i = 0; i < c.n_ex && i < p.n_ex; i++) {
		CHECK(llabs((long long)c.ex_start[i] - (long long)p.ex_start[i]) <= 2000000);
		CHECK(llabs((long long)c.ex_end[i] - (long long)p.ex_end[i]) <= 2000000);
		CHECK(llabs((long long)c.ttft[i] - (long long)p.ttft[i]) <= 2000000);
	}
	CHECK(c.gaps == 1);

	/* both tiers on the same run: the ciphertext timing rides along */
	cfg.out_dir = both_dir;
	cfg.ciphertext = 0;
	s = replay(&cfg, TD "demo_both.jsonl", 1);
	read_turns(xt_session_stats(s).dir, &b);
	xt_session_free(s);
	CHECK(b.turns == p.turns && b.n_ex == p.n_ex);
	for (int i = 0; i < b.n_ex; i++) {
		CHECK(b.sh_start[i] && llabs((long long)b.sh_start[i] - (long long)b.ex_start[i]) <= 2000000);
		CHECK(llabs((long long)b.sh_end[i] - (long long)b.ex_end[i]) <= 2000000);
		CHECK(llabs((long long)b.sh_ttft[i] - (long long)b.ttft[i]) <= 2000000);
	}

	/* a concurrent side request stays in its turn as its own exchange */
	cfg.out_dir = conc_dir;
	s = replay(&cfg, TD "concurrent.jsonl", 1);
	read_turns(xt_session_stats(s).dir, &k);
	xt_session_free(s);
	CHECK(k.turns == 2 && k.n_ex == 3 && k.incomplete == 0);
	CHECK(k.ex_start[0] < k.ex_start[1] && k.ex_end[1] < k.ex_end[0]); /* overlapping */
	cJSON_Delete(k.waste);

	cut_fixture(TD "demo_plain.jsonl", cut_file, 200);
	cfg.out_dir = cut_dir;
	cfg.ciphertext = 0;
	s = replay(&cfg, cut_file, 0);
	read_turns(xt_session_stats(s).dir, &k);
	xt_session_free(s);
	CHECK(k.turns >= 3 && k.turns < 6 && k.incomplete == 1);
	check_capped(tmp);
	check_every_cut(tmp, TD "demo_plain.jsonl", 0);
	check_every_cut(tmp, TD "demo_cipher.jsonl", 1);
	check_every_cut(tmp, TD "demo_both.jsonl", 0);
	check_attach_mid_write(tmp);
	check_setup(tmp);
	check_thread_switch(tmp);
	check_ping_ack(tmp);

	cJSON_Delete(p.waste);
	cJSON_Delete(c.waste);
	cJSON_Delete(k.waste);
	cJSON_Delete(b.waste);
	cJSON_Delete(truth);
	free(tx);
	return test_failures != 0;
}
