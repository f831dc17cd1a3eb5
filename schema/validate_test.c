/* SPDX-License-Identifier: MIT */
/*
 * validate_test.c - the validator against its fixtures and its limits.
 *
 * Every testdata/invalid/X.json must produce exactly the lines of X.expect
 * (file:line:col: /pointer: message); every testdata/valid file must load
 * with no error, its values reaching a sink with their slots (9 spans, 4 token
 * times in llm_turn_full), and a sink gets nothing after a first error. Then: turntrace.schema.json is JSON, declares draft 2020-12
 * and lists the same waste kinds and counter names as theory; 100,000-deep
 * nesting fails fast with one error; oversized input is refused unread; the
 * error cap holds; a 20,000-span turn validates; I/O errors are reported;
 * every fixture moved so that the edge of the 64 KiB window a file is read
 * through falls inside it gives the same lines read from disk as from memory.
 */
#include "schema/validate.h"

#include <dirent.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "lib/test_check.h"
#include "schema/jtok.h"
#include "theory/theory.h"

struct out {
	char buf[8192];
	size_t len;
	int n;
	struct sc_verror last;
};

static void collect(const struct sc_verror *e, void *ctx)
{
	struct out *o = ctx;
	char line[1024];

	sc_verror_format(e, line, sizeof(line));
	o->len += (size_t)snprintf(o->buf + o->len, sizeof(o->buf) - o->len, "%s\n", line);
	if (o->len >= sizeof(o->buf))
		o->len = sizeof(o->buf) - 1;
	o->n++;
	o->last = *e;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json names in dir, sorted; returns the count. */
static size_t list_json(const char *dir, char *names[], size_t max)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		size_t l = strlen(de->d_name);

		if (l > 5 && !strcmp(de->d_name + l - 5, ".json"))
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	return n;
}

static void test_invalid_fixtures(void)
{
	const char *dir = "schema/testdata/invalid";
	char *names[256], path[512];
	size_t n = list_json(dir, names, 256);

	CHECK(n >= 20, "want >= 20 invalid fixtures, have %zu", n);
	for (size_t i = 0; i < n; i++) {
		struct out o = { .len = 0 };
		size_t len = 0, elen = 0;
		char *buf, *expect;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		buf = test_slurp(path, &len);
		snprintf(path + strlen(path) - 5, 8, ".expect");
		expect = test_slurp(path, &elen);
		CHECK(buf && expect && elen > 0, "%s: fixture or its .expect missing", names[i]);
		if (buf && expect) {
			sc_validate_buffer(names[i], buf, len, collect, &o);
			CHECK(o.n > 0 && !strcmp(o.buf, expect), "%s:\n  want: %s  got:  %s",
			      names[i], expect, o.n ? o.buf : "(no error)\n");
		}
		free(buf);
		free(expect);
		free(names[i]);
	}
}

/* What a reader gets from the validator (validate.h: slots, whole free-form parts). */
struct count {
	size_t values, opened, closed, spans, tree_values, tokens;
};

static int count_value(void *ctx, const struct sc_vval *v)
{
	struct count *c = ctx;

	c->values++;
	c->opened += v->ev->type == SC_J_OBJECT || v->ev->type == SC_J_ARRAY;
	c->closed += v->ev->type == SC_J_END;
	c->spans += v->slot == SC_SPAN && v->ev->type == SC_J_OBJECT;
	c->tree_values += v->tree != SC_NONE;
	c->tokens += v->slot == SC_TOKEN_TIME;
	return 0;
}

static void test_valid_fixtures(void)
{
	const char *dir = "schema/testdata/valid";
	char *names[64], path[512];
	size_t n = list_json(dir, names, 64);

	CHECK(n >= 2, "want valid fixtures");
	for (size_t i = 0; i < n; i++) {
		struct out o = { .len = 0 };
		struct count c = { 0 };
		struct sc_vsink sink = { count_value, &c };
		int nerr;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		nerr = sc_validate_file_into(path, collect, &o, &sink);
		CHECK(nerr == 0, "%s: %s", names[i], o.buf);
		CHECK(c.opened == c.closed && c.values > 10, "%s: %zu values, %zu opened, %zu closed",
		      names[i], c.values, c.opened, c.closed);
		if (!strcmp(names[i], "llm_turn_full.json"))
			CHECK(c.spans == 9 && c.tree_values > 20 && c.tokens == 4,
			      "llm_turn_full: %zu spans, %zu attribute values, %zu token times",
			      c.spans, c.tree_values, c.tokens);
		free(names[i]);
	}
}

/* A reader gets values only while the document has no error: after the first, nothing. */
static void test_sink_stops(void)
{
	struct count c = { 0 };
	struct sc_vsink sink = { count_value, &c };
	struct out o = { .len = 0 };

	CHECK(sc_validate_file_into("schema/testdata/invalid/wrong_type.json", collect, &o,
				    &sink) == 1 && c.values == 1,
	      "values after the error at turn_index: %zu (%s)", c.values, o.buf);
}

/* The names of a JSON array of strings match a theory table column. */
static int same_names(const cJSON *arr, const char *(*name)(size_t), size_t n)
{
	const cJSON *c;
	size_t i = 0;

	if (cJSON_GetArraySize(arr) != (int)n)
		return 0;
	cJSON_ArrayForEach(c, arr)
		if (!cJSON_IsString(c) || strcmp(c->valuestring, name(i++)))
			return 0;
	return 1;
}

static const char *waste_name(size_t i)
{
	return th_waste_kind_table[i].kind;
}

static const char *counter_name(size_t i)
{
	return th_counter_name_table[i].name;
}

static void test_schema_file(void)
{
	size_t len = 0;
	char *buf = test_slurp("schema/turntrace.schema.json", &len);
	cJSON *s = buf ? cJSON_ParseWithLength(buf, len) : NULL;
	cJSON *defs = cJSON_GetObjectItem(s, "$defs");
	cJSON *wm = cJSON_GetObjectItem(cJSON_GetObjectItem(defs, "waste_mark"), "properties");

	CHECK(s, "turntrace.schema.json is not JSON");
	CHECK(cJSON_IsString(cJSON_GetObjectItem(s, "$schema")) &&
		      !strcmp(cJSON_GetObjectItem(s, "$schema")->valuestring,
			      "https://json-schema.org/draft/2020-12/schema"),
	      "schema does not declare draft 2020-12");
	CHECK(same_names(cJSON_GetObjectItem(cJSON_GetObjectItem(wm, "kind"), "enum"), waste_name,
			 th_waste_kind_count), "schema waste kinds differ from theory");
	CHECK(same_names(cJSON_GetObjectItem(cJSON_GetObjectItem(defs, "counter_name"), "enum"),
			 counter_name, th_counter_name_count),
	      "schema counter names differ from theory");
	cJSON_Delete(s);
	free(buf);
}

static void test_limits(void)
{
	size_t deep = 100000;
	char *buf = malloc(2 * deep);
	struct out o = { .len = 0 };

	memset(buf, '[', deep);
	memset(buf + deep, ']', deep);
	CHECK(sc_validate_buffer("deep", buf, 2 * deep, collect, &o) == 1 &&
		      strstr(o.last.msg, "nesting deeper than 64 levels") && o.last.col == 65,
	      "100,000-deep nesting: %s", o.buf);
	free(buf);

	buf = calloc(1, (size_t)XP_VALIDATE_MAX_BYTES + 1); /* zero pages, never touched */
	o.len = 0, o.n = 0;
	CHECK(buf && sc_validate_buffer("big", buf, (size_t)XP_VALIDATE_MAX_BYTES + 1, collect,
					&o) == 1 && strstr(o.last.msg, "over the 64 MiB limit"),
	      "oversized buffer: %s", o.buf);
	free(buf);

	o.len = 0, o.n = 0;
	CHECK(sc_validate_file("schema/testdata/no-such-file.json", collect, &o) == 1 &&
		      o.last.line == 0 && strstr(o.last.msg, "cannot open"),
	      "missing file: %s", o.buf);

	/* Pointers longer than struct sc_verror.pointer are cut, never overrun (fuzz find). */
	buf = malloc(64 * 16 + 2);
	for (int i = 0; i < 60; i++)
		memcpy(buf + 16 * i, "{\"k/k~kkkkkkkk\": ", 16);
	memcpy(buf + 16 * 60, "x", 2);
	o.len = 0, o.n = 0;
	CHECK(sc_validate_buffer("ptr", buf, strlen(buf), collect, &o) == 1 &&
		      strlen(o.last.pointer) < sizeof(o.last.pointer) &&
		      !strncmp(o.last.pointer, "/k~1k~0kkkkkkkk/k~1k", 20),
	      "long pointer: %s", o.buf);
	free(buf);

	o.len = 0, o.n = 0;
	CHECK(sc_validate_buffer(NULL, "\"\\u\x10\x10\x10\x10\"", 8, collect, &o) == 1 &&
		      !strcmp(o.last.msg, "invalid \\u escape in string"),
	      "control bytes as hex digits: %s", o.buf);

	o.len = 0, o.n = 0;
	CHECK(sc_validate_buffer(NULL, "[1, 2, x]", 9, collect, &o) == 1 &&
		      !strcmp(o.buf, "<buffer>:1:8: /2: unexpected 'x', expected a JSON value\n"),
	      "array pointer: %s", o.buf);
}

/* A turn with n spans (and as many unknown properties when junk). */
static char *make_turn(int n, int junk)
{
	cJSON *t = cJSON_Parse("{\"schema_version\":\"1.0\",\"session_id\":\"big\","
			       "\"turn_index\":1,\"complete\":true,\"source\":\"ebpf\","
			       "\"clock\":\"CLOCK_MONOTONIC\",\"start_ns\":0,"
			       "\"end_ns\":100000000000,\"agent\":{\"name\":\"a\",\"pid\":7},"
			       "\"spans\":[],\"fused_marks\":[],\"waste_marks\":[],"
			       "\"data_quality\":{\"tier\":\"ciphertext\",\"dropped_events\":3,"
			       "\"truncated_payloads\":0,\"warnings\":[]}}");
	cJSON *spans = cJSON_GetObjectItem(t, "spans");
	char *s;

	for (int i = 0; i < n; i++) {
		cJSON *sp = cJSON_CreateObject();

		cJSON_AddNumberToObject(sp, "id", i + 1);
		if (i)
			cJSON_AddNumberToObject(sp, "parent", 1);
		else
			cJSON_AddNullToObject(sp, "parent");
		cJSON_AddStringToObject(sp, "stage", i ? "tool_call" : "orchestration");
		cJSON_AddStringToObject(sp, "domain", "compute");
		cJSON_AddStringToObject(sp, "category", "processing");
		cJSON_AddNumberToObject(sp, "start_ns", i ? 1000.0 * i : 0);
		cJSON_AddNumberToObject(sp, "end_ns", i ? 1000.0 * i + 500 : 1e11);
		if (junk)
			cJSON_AddNumberToObject(sp, "junk", i);
		cJSON_AddItemToArray(spans, sp);
	}
	s = cJSON_PrintUnformatted(t);
	cJSON_Delete(t);
	return s;
}

static void test_big_and_capped(void)
{
	struct out o = { .len = 0 };
	char *s = make_turn(20000, 0);

	CHECK(sc_validate_buffer("big", s, strlen(s), collect, &o) == 0, "20k spans: %s", o.buf);
	free(s);
	s = make_turn(500, 1);
	o.len = 0, o.n = 0;
	CHECK(sc_validate_buffer("junk", s, strlen(s), collect, &o) == XP_VALIDATE_MAX_ERRORS + 1 &&
		      o.n == XP_VALIDATE_MAX_ERRORS + 1 && strstr(o.last.msg, "too many errors"),
	      "error cap: %d errors, last %s", o.n, o.last.msg);
	free(s);
}

/* Fixture `name` of dir behind pad spaces, from disk (through the window) and from memory. */
static void check_moved(const char *dir, const char *name, size_t pad)
{
	char path[512], tmp[] = "/tmp/validate_window.XXXXXX";
	struct out disk = { .len = 0 }, mem = { .len = 0 };
	size_t len = 0;
	char *buf, *moved;
	int fd = mkstemp(tmp);

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	buf = test_slurp(path, &len);
	moved = buf ? malloc(pad + len) : NULL;
	CHECK(fd >= 0 && moved, "%s: cannot move it", name);
	if (fd >= 0 && moved) {
		memset(moved, ' ', pad);
		memcpy(moved + pad, buf, len);
		CHECK(write(fd, moved, pad + len) == (ssize_t)(pad + len), "%s: write", name);
		sc_validate_file(tmp, collect, &disk);
		sc_validate_buffer(tmp, moved, pad + len, collect, &mem);
		CHECK(disk.n == mem.n && !strcmp(disk.buf, mem.buf), "%s + %zu: disk:\n%s memory:\n%s",
		      name, pad, disk.buf, mem.buf);
	}
	if (fd >= 0)
		close(fd), unlink(tmp);
	free(moved);
	free(buf);
}

static void test_window_edge(void)
{
	static const char *const dirs[] = { "schema/testdata/invalid", "schema/testdata/valid" };
	static const size_t into[] = { 1, 2, 7, 40, 300 }; /* bytes of the fixture before the edge */
	char *names[256];

	for (size_t d = 0; d < 2; d++) {
		size_t n = list_json(dirs[d], names, 256);

		for (size_t i = 0; i < n; i++) {
			for (size_t k = 0; k < sizeof(into) / sizeof(into[0]); k++)
				check_moved(dirs[d], names[i], 65536 - into[k]);
			free(names[i]);
		}
	}
}

int main(void)
{
	test_invalid_fixtures();
	test_valid_fixtures();
	test_sink_stops();
	test_schema_file();
	test_limits();
	test_big_and_capped();
	test_window_edge();
	if (test_failures)
		fprintf(stderr, "%d validator check(s) failed\n", test_failures);
	return test_failures != 0;
}
