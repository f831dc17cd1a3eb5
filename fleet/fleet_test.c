// SPDX-License-Identifier: MIT
/*
 * fleet_test.c - the fleet library against known answers: label escaping, name
 * sanitizing and exact seconds (hand-written cases), the exposition of hand-built aggregates
 * (every HELP/TYPE once, before its samples; escaped labels), the bounded lists
 * (worst sessions, invalid files) under more entries than they keep, and the
 * walk of testdata/fleet against testdata/expected.json (written by the fixture
 * generator from what it put in the files).
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "lib/test_check.h"

static char *escaped(const char *in, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	fleet_prom_escape(in, len, f);
	fclose(f);
	return buf;
}

static void test_escape(void)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "gpu-node-a", "gpu-node-a" },
		{ "a\"b", "a\\\"b" },
		{ "a\\b", "a\\\\b" },
		{ "a\nb", "a\\nb" },
		{ "\xff", "\xef\xbf\xbd" },                      /* not UTF-8 */
		{ "\xc0\x80", "\xef\xbf\xbd\xef\xbf\xbd" },      /* overlong NUL */
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" }, /* surrogate */
		{ "\xe2\x82", "\xef\xbf\xbd\xef\xbf\xbd" },      /* truncated sequence */
		{ "n\xc3\xa9ud \xf0\x9f\x9a\x80", "n\xc3\xa9ud \xf0\x9f\x9a\x80" }, /* kept */
		{ "", "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = escaped(cases[i].in, strlen(cases[i].in));

		CHECK(!strcmp(got, cases[i].out), "escape case %zu: got '%s'", i, got);
		free(got);
	}
}

static void test_copy_name(void)
{
	char buf[8];

	fleet_copy_name(buf, sizeof(buf), "a\xff" "b\xed\xa0\x80");
	CHECK(!strcmp(buf, "a?b???"), "bad bytes: '%s'", buf);
	fleet_copy_name(buf, 3, "a\xc3\xa9");
	CHECK(!strcmp(buf, "a"), "cut inside a character: '%s'", buf);
	fleet_copy_name(buf, sizeof(buf), "n\xc3\xa9ud");
	CHECK(!strcmp(buf, "n\xc3\xa9ud"), "valid UTF-8 changed: '%s'", buf);
}

static void test_seconds(void)
{
	static const struct { uint64_t ns; const char *s; } cases[] = {
		{ 0, "0" }, { 1000000000, "1" }, { 1500000000, "1.5" }, { 1, "0.000000001" },
		{ 12345678901ull, "12.345678901" }, { 18446744073709551615ull,
						      "18446744073.709551615" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fleet_seconds(cases[i].ns, buf, sizeof(buf));
		CHECK(!strcmp(buf, cases[i].s), "seconds(%llu) = %s, want %s",
		      (unsigned long long)cases[i].ns, buf, cases[i].s);
	}
}

/* Add a session with `turns` turns of 1 s, `eff` of which is effective, firing point `fire`. */
static int add(struct fleet_agg *a, const char *path, const char *node, const char *agent,
	       unsigned turns, double eff, size_t fire)
{
	unsigned fired[th_l3_count];
	uint64_t ns[th_l3_count];
	struct fleet_input in = { .path = path, .node = node, .agent = agent, .turns = turns,
				  .wall_ns = turns * 1000000000ull, .dropped_events = 2,
				  .fired = fired, .ns = ns, .top = &th_l3_table[fire] };

	memset(fired, 0, sizeof(fired));
	memset(ns, 0, sizeof(ns));
	fired[fire] = turns;
	ns[fire] = 250000000;
	in.l2_ns[XP_DOMAIN_COMPUTE][XP_CAT_EFFECTIVE] = (uint64_t)(eff * (double)in.wall_ns);
	in.l2_ns[XP_DOMAIN_FUSED][XP_CAT_SUPPLY] =
		in.wall_ns - in.l2_ns[XP_DOMAIN_COMPUTE][XP_CAT_EFFECTIVE];
	return fleet_add_session(a, &in);
}

/* Does sample p belong to metric name (a histogram's: name_bucket, _sum, _count)? */
static int under(const char *p, const char *name)
{
	static const char *const suffixes[] = { "", "_bucket", "_sum", "_count" };
	size_t n = strlen(name);

	if (strncmp(p, name, n))
		return 0;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t k = strlen(suffixes[i]);

		if (!strncmp(p + n, suffixes[i], k) && strchr("{ ", p[n + k]))
			return 1;
	}
	return 0;
}

/* Every metric's HELP and TYPE come once, right before its first sample. */
static void check_exposition(const char *text)
{
	char name[128] = "", last[128] = "";
	int samples = 0;

	for (const char *p = text; *p; p = strchr(p, '\n') + 1) {
		size_t len = strcspn(p, "\n");

		CHECK(p[len] == '\n', "the exposition must end with a newline");
		if (!strncmp(p, "# HELP ", 7)) {
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(p + 7, " "), p + 7);
			CHECK(strcmp(name, last), "metric %s described twice", name);
			CHECK(strstr(text, name) == p + 7, "%s sampled before its HELP", name);
		} else if (!strncmp(p, "# TYPE ", 7)) {
			CHECK(!strncmp(p + 7, name, strlen(name)), "TYPE not after HELP for %s",
			      name);
			snprintf(last, sizeof(last), "%s", name);
		} else {
			CHECK(under(p, name), "sample '%.*s' not under its metric %s", (int)len, p,
			      name);
			samples++;
		}
		if (!p[len])
			break;
	}
	CHECK(samples > 0, "no samples");
}

static void test_exposition(void)
{
	struct fleet_agg a;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	CHECK(!fleet_agg_init(&a, "/t"), "init");
	CHECK(!add(&a, "/t/n2/s1", "n\"2", "a\\b", 3, 0.5, 0), "add");
	CHECK(!add(&a, "/t/n1/s1", "n1", "agent", 2, 0.25, 1), "add");
	CHECK(!add(&a, "/t/n1/s2", "n1", "agent", 1, 1.0, 1), "add");
	CHECK(!fleet_add_bad(&a, "n1", "/t/n1/s3/turn_001.json:1:1: /: bad", 0), "bad");
	f = open_memstream(&buf, &len);
	CHECK(!fleet_prom_write(&a, f), "write");
	fclose(f);
	check_exposition(buf);
	CHECK(strstr(buf, "\nxperf_turns_total{node=\"n\\\"2\",agent=\"a\\\\b\"} 3\n"),
	      "escaped series missing:\n%s", buf);
	CHECK(strstr(buf, "\nxperf_turn_seconds_total{node=\"n1\",agent=\"agent\"} 3\n"), "secs");
	CHECK(strstr(buf, "\nxperf_sessions{node=\"n1\",agent=\"agent\"} 2\n"), "sessions");
	CHECK(strstr(buf, "\nxperf_category_seconds_total{node=\"n1\",agent=\"agent\","
			  "domain=\"compute\",category=\"effective\"} 1.5\n"),
	      "effective seconds of n1/agent: 0.25 * 2 + 1 * 1 = 1.5");
	CHECK(strstr(buf, "\nxperf_bottleneck_turns_total{node=\"n1\",agent=\"agent\",l3=\"") &&
	      strstr(buf, "\nxperf_bottleneck_sessions{l3=\""), "bottleneck labels");
	CHECK(strstr(buf, "\nxperf_dropped_events_total{node=\"n1\"} 4\n"), "dropped per node");
	CHECK(strstr(buf, "\nxperf_invalid_files{node=\"n1\"} 1\n"), "invalid per node");
	CHECK(strstr(buf, "\nxperf_nodes 2\n"), "nodes");
	free(buf);
	/* Ranking: point 1 fired in 3 turns over 2 sessions, point 0 in 3 turns in 1 session. */
	{
		size_t idx[th_l3_count], n = fleet_ranked_points(&a, idx);

		CHECK(n == 2 && idx[0] == 1 && idx[1] == 0, "ranking: n=%zu", n);
		CHECK(a.points[1].sessions == 2 && a.points[1].turns == 3, "point 1 counts");
	}
	CHECK(a.nworst == 3 && !strcmp(a.worst[0].path, "/t/n1/s1") &&
	      !strcmp(a.worst[2].path, "/t/n1/s2"), "worst order");
	fleet_agg_free(&a);
}

static void test_bounded_lists(void)
{
	struct fleet_agg a;
	char path[64];

	CHECK(!fleet_agg_init(&a, "/t"), "init");
	for (int i = 40; i > 0; i--) {
		snprintf(path, sizeof(path), "/t/n/s%02d", i);
		CHECK(!add(&a, path, "n", "x", 1, i / 100.0, 2), "add");
		snprintf(path, sizeof(path), "/t/n/b%02d/turn_001.json: bad", i);
		CHECK(!fleet_add_bad(&a, "n", path, 0), "bad");
	}
	CHECK(a.nworst == FLEET_WORST && !strcmp(a.worst[0].path, "/t/n/s01") &&
	      !strcmp(a.worst[FLEET_WORST - 1].path, "/t/n/s05"),
	      "worst kept: %s", a.worst[0].path);
	CHECK(a.nbad == FLEET_BAD_SHOWN && a.invalid_files == 40, "bad count %u", a.nbad);
	CHECK(!strncmp(a.bad[0], "/t/n/b01/", 9) && !strncmp(a.bad[FLEET_BAD_SHOWN - 1],
							      "/t/n/b20/", 9), "bad order");
	CHECK(a.nseries == 1 && a.series[0].sessions == 40, "one series");
	fleet_agg_free(&a);
}

static unsigned get(const cJSON *o, const char *k)
{
	return (unsigned)cJSON_GetNumberValue(cJSON_GetObjectItem(o, k));
}

static void test_collect(const char *dir, const char *expected)
{
	FILE *f = fopen(expected, "r");
	char text[8192];
	size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	cJSON *exp, *se;
	struct fleet_agg a;

	if (f)
		fclose(f);
	text[n] = '\0';
	exp = cJSON_Parse(text);
	CHECK(exp, "cannot read %s", expected);
	if (!exp)
		return;
	CHECK(!fleet_agg_init(&a, dir) && !fleet_collect(dir, &a, NULL), "collect %s", dir);
	CHECK(a.sessions == get(exp, "sessions") && a.turns == get(exp, "turns") &&
	      a.incomplete == get(exp, "incomplete") && a.dropped_events == get(exp, "dropped"),
	      "totals: %u sessions %u turns", a.sessions, a.turns);
	CHECK((double)a.wall_ns == cJSON_GetNumberValue(cJSON_GetObjectItem(exp, "wall_ns")),
	      "wall");
	CHECK(a.invalid_files == get(exp, "invalid_files") &&
	      a.failed_sessions == get(exp, "failed_sessions") && a.nbad == 3, "problems");
	fleet_sort(&a);
	CHECK(a.nseries == (size_t)cJSON_GetArraySize(cJSON_GetObjectItem(exp, "series")), "n");
	for (size_t i = 0; i < a.nseries; i++) {
		char key[2 * FLEET_NAME];

		snprintf(key, sizeof(key), "%s/%s", a.series[i].node, a.series[i].agent);
		se = cJSON_GetObjectItem(cJSON_GetObjectItem(exp, "series"), key);
		CHECK(se && a.series[i].turns == get(se, "turns") &&
		      a.series[i].sessions == get(se, "sessions") &&
		      (double)a.series[i].wall_ns == cJSON_GetNumberValue(
				cJSON_GetObjectItem(se, "wall_ns")), "series %s", key);
	}
	{
		uint64_t sum = 0;

		for (int c = 0; c < XP_CAT_COUNT; c++)
			sum += fleet_cat_ns(&a, (enum th_category)c);
		CHECK(sum == a.wall_ns, "every ns charged once: %llu vs %llu",
		      (unsigned long long)sum, (unsigned long long)a.wall_ns);
	}
	fleet_agg_free(&a);
	cJSON_Delete(exp);
}

int main(int argc, char **argv)
{
	test_escape();
	test_seconds();
	test_copy_name();
	test_exposition();
	test_bounded_lists();
	if (argc == 3)
		test_collect(argv[1], argv[2]);
	else
		CHECK(0, "usage: fleet_test FLEET_DIR EXPECTED_JSON");
	return test_failures != 0;
}
