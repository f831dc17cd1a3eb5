// SPDX-License-Identifier: MIT
/* json_int_test.c - exact 64-bit integers through print and parse. */
#include "lib/json_int.h"

#include <stdlib.h>
#include <string.h>

#include "lib/test_check.h"

static const uint64_t values[] = {
	0, 999999999999999ull,  1000000000000000ull,  1049342731070000ull, 1200000000000123ull,
	9007199254740992ull, 9007199254740993ull, 18446744073709551615ull,
};
#define NVALUES (sizeof(values) / sizeof(values[0]))

static void round_trip(int formatted)
{
	cJSON *arr = cJSON_CreateArray(), *back;
	char *text, *again;
	int i = 0;

	for (size_t k = 0; k < NVALUES; k++)
		cJSON_AddItemToArray(arr, xp_json_exact_u64(values[k]));
	text = xp_json_print(arr, formatted);
	CHECK(text && strstr(text, "1049342731070000") && strstr(text, "9007199254740993") &&
		      strstr(text, "18446744073709551615") && !strchr(text, 'e'),
	      "printed %s", text);
	back = xp_json_parse(text, strlen(text));
	for (cJSON *n = back ? back->child : NULL; n; n = n->next, i++) {
		uint64_t v = 1;

		CHECK(!xp_json_get_u64(n, &v) && v == values[i], "%d: %llu != %llu", i,
		      (unsigned long long)v, (unsigned long long)values[i]);
	}
	CHECK(i == (int)NVALUES, "parsed %d values", i);
	again = back ? xp_json_print(back, formatted) : NULL;
	CHECK(again && !strcmp(text, again), "reprint differs: %s", again);
	free(again);
	free(text);
	cJSON_Delete(back);
	cJSON_Delete(arr);
}

/* Digits and quotes inside strings must not shift the pairing of literals and nodes. */
static void pairing(void)
{
	const char *doc = "{\"k\\\"12345678901234567\":\"-9007199254740993 \\\\\","
			  "\"a\":[1.5e300,-9007199254740993,{\"b\":12345678901234567}],"
			  "\"c\":\"x\",\"d\":1234567890123456789012}";
	cJSON *root = xp_json_parse(doc, strlen(doc));
	cJSON *a = cJSON_GetObjectItem(root, "a");
	int64_t s = 0;
	uint64_t u = 0;

	CHECK(root, "parse");
	CHECK(!cJSON_GetArrayItem(a, 0)->valuestring, "1.5e300 keeps no literal");
	CHECK(!xp_json_get_i64(cJSON_GetArrayItem(a, 1), &s) && s == -9007199254740993ll,
	      "negative: %lld", (long long)s);
	CHECK(xp_json_get_u64(cJSON_GetArrayItem(a, 1), &u), "negative as u64 refused");
	CHECK(!xp_json_get_u64(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 2), "b"), &u) &&
		      u == 12345678901234567ull,
	      "nested: %llu", (unsigned long long)u);
	CHECK(xp_json_get_u64(cJSON_GetObjectItem(root, "d"), &u), "over 2^64 refused");
	CHECK(xp_json_get_u64(cJSON_GetObjectItem(root, "c"), &u), "a string is no number");
	cJSON_Delete(root);
}

/* Raw nodes of other code print as written and stay raw. */
static void raw_untouched(void)
{
	cJSON *o = cJSON_CreateObject();
	char *text;

	cJSON_AddRawToObject(o, "r", "[1,2]");
	xp_json_add_u64(o, "t", 1200000000000000ull);
	text = xp_json_print(o, 0);
	CHECK(text && !strcmp(text, "{\"r\":[1,2],\"t\":1200000000000000}"), "got %s", text);
	CHECK(cJSON_IsRaw(cJSON_GetObjectItem(o, "r")) &&
		      cJSON_IsNumber(cJSON_GetObjectItem(o, "t")),
	      "types restored after printing");
	free(text);
	cJSON_Delete(o);
}

/* xp_json_item appends in order; xp_json_fput prints the exact literal and a newline. */
static void item_and_fput(void)
{
	cJSON *arr = cJSON_CreateArray();
	char buf[256] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	xp_json_add_u64(xp_json_item(arr), "a", 1200000000000123ull);
	cJSON_AddTrueToObject(xp_json_item(arr), "b");
	CHECK(f && !xp_json_fput(arr, f) && !fclose(f), "fput");
	CHECK(!strcmp(buf, "[{\n\t\t\"a\":\t1200000000000123\n\t}, {\n\t\t\"b\":\ttrue\n\t}]\n"),
	      "got %s", buf);
}

int main(void)
{
	round_trip(0);
	round_trip(1);
	pairing();
	raw_untouched();
	item_and_fput();
	return test_failures != 0;
}
