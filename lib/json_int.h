/* SPDX-License-Identifier: MIT */
/*
 * json_int.h - exact 64-bit integers in cJSON documents; the writers' two helpers too
 * (an object appended to an array, a document printed to a FILE).
 *
 * cJSON holds every number as a double and prints integers of 16 digits or
 * more in exponent form ("1.04934273107e+15") or rounded (a double is exact
 * only up to 2^53). CLOCK_MONOTONIC nanoseconds reach 1e15 after 11.6 days of
 * uptime and 2^53 after 104 days, so such integers travel as their decimal
 * literal: a number node keeps valuedouble (approximate, for code that only
 * compares or divides) and carries the exact literal in valuestring (which
 * cJSON_Delete and cJSON_Duplicate already handle). Integers below 1e15 are
 * plain numbers: cJSON prints and parses those exactly.
 *
 * Write with xp_json_add_u64() and xp_json_print(); read with xp_json_parse()
 * and xp_json_get_u64() / xp_json_get_i64().
 */
#ifndef XPERF_LIB_JSON_INT_H
#define XPERF_LIB_JSON_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* A number node holding v exactly; NULL when out of memory. */
cJSON *xp_json_exact_u64(uint64_t v);
cJSON *xp_json_exact_i64(int64_t v);

/* Add xp_json_exact_u64(v) to obj under key; NULL (obj unchanged) when out of memory. */
cJSON *xp_json_add_u64(cJSON *obj, const char *key, uint64_t v);

/* A number node for the literal lit[0..len) whose value is d, the literal kept as above. */
cJSON *xp_json_number(const char *lit, size_t len, double d);

/*
 * cJSON_ParseWithLength, then every integer literal of 16 digits or more is
 * kept on its node. NULL when the text is not JSON or memory runs out.
 */
cJSON *xp_json_parse(const char *buf, size_t len);

/*
 * The value of a number node: its kept literal when it has one, else its
 * double truncated toward zero. 0 on success; -1 when n is not a number or
 * the value is out of range (negative for u64) or not finite.
 */
int xp_json_get_u64(const cJSON *n, uint64_t *out);
int xp_json_get_i64(const cJSON *n, int64_t *out);

/* cJSON_Print / cJSON_PrintUnformatted, with kept literals printed as written. */
char *xp_json_print(cJSON *root, int formatted);

/* A new object at the end of array arr; NULL (arr unchanged) when out of memory. */
cJSON *xp_json_item(cJSON *arr);

/* xp_json_print(root, 1) and a newline to out, then root deleted: 0, or -1 out of memory. */
int xp_json_fput(cJSON *root, FILE *out);

#endif /* XPERF_LIB_JSON_INT_H */
