// SPDX-License-Identifier: MIT
/*
 * json_out_test.c - what xp_jout writes is JSON that cJSON (with json_int's
 * exact integers) reads back to the same values: every byte of every string
 * (control characters, quotes, non-ASCII), integers at both ends of 64 bits,
 * nesting, raw members; strings in cJSON_PrintUnformatted's very bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_int.h"
#include "lib/json_out.h"
#include "lib/test_check.h"

static cJSON *parsed(struct xp_jout *j)
{
	cJSON *o = j->err ? NULL : xp_json_parse(j->buf, j->len);

	CHECK(o, "not JSON: %.*s", (int)j->len, j->buf);
	return o;
}

static void strings(void)
{
	struct xp_jout j = { 0 };
	char all[256], *text;
	cJSON *o;

	for (int i = 0; i < 255; i++)
		all[i] = (char)(i + 1);
	all[255] = 0;
	xp_jout_reset(&j);
	xp_jout_open(&j, NULL, '{');
	xp_jout_str(&j, "all", all);
	xp_jout_strn(&j, "cut", "abcdef", 3);
	xp_jout_strn(&j, "nul", "ab\0cd", 5);
	xp_jout_str(&j, "k\"ey", "v");
	xp_jout_close(&j, '}');
	o = parsed(&j);
	CHECK(o && !strcmp(cJSON_GetObjectItem(o, "all")->valuestring, all), "bytes 1..255");
	CHECK(o && !strcmp(cJSON_GetObjectItem(o, "cut")->valuestring, "abc"), "max");
	CHECK(o && !strcmp(cJSON_GetObjectItem(o, "nul")->valuestring, "ab"), "stops at NUL");
	CHECK(o && cJSON_GetObjectItem(o, "k\"ey"), "escaped key");
	cJSON_Delete(o);

	/* The very text cJSON prints: export/emit.c writes cJSON_PrintUnformatted's bytes with it. */
	o = cJSON_CreateString(all);
	text = cJSON_PrintUnformatted(o);
	xp_jout_reset(&j);
	xp_jout_str(&j, NULL, all);
	CHECK(text && j.len == strlen(text) && !memcmp(j.buf, text, j.len), "cJSON's escapes");
	free(text);
	cJSON_Delete(o);
	xp_jout_free(&j);
}

static void numbers_and_nesting(void)
{
	struct xp_jout j = { 0 };
	uint64_t u;
	cJSON *o, *a;

	for (int round = 0; round < 2; round++) {	/* the second reuses the buffer */
		xp_jout_reset(&j);
		xp_jout_open(&j, NULL, '{');
		xp_jout_u64(&j, "max", UINT64_MAX);
		xp_jout_u64(&j, "zero", 0);
		xp_jout_bool(&j, "t", true);
		xp_jout_open(&j, "argv", '[');
		xp_jout_str(&j, NULL, "a");
		xp_jout_str(&j, NULL, "b");
		xp_jout_close(&j, ']');
		xp_jout_open(&j, "empty", '{');
		xp_jout_close(&j, '}');
		xp_jout_raw(&j, NULL, "\"r\":[1,2]", 9);
		xp_jout_close(&j, '}');
		o = parsed(&j);
		CHECK(o && !xp_json_get_u64(cJSON_GetObjectItem(o, "max"), &u) && u == UINT64_MAX,
		      "u64 max");
		CHECK(o && !xp_json_get_u64(cJSON_GetObjectItem(o, "zero"), &u) && u == 0, "zero");
		CHECK(o && cJSON_IsTrue(cJSON_GetObjectItem(o, "t")), "bool");
		a = o ? cJSON_GetObjectItem(o, "argv") : NULL;
		CHECK(cJSON_GetArraySize(a) == 2 && !strcmp(cJSON_GetArrayItem(a, 1)->valuestring, "b"),
		      "array");
		CHECK(o && cJSON_GetArraySize(cJSON_GetObjectItem(o, "r")) == 2, "raw members");
		cJSON_Delete(o);
	}
	xp_jout_free(&j);
}

int main(void)
{
	strings();
	numbers_and_nesting();
	return test_failures != 0;
}
