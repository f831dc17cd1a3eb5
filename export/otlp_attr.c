// SPDX-License-Identifier: MIT
/*
 * otlp_attr.c - TurnTrace values as OTLP AnyValue: strings, booleans,
 * integers (decimal strings, as OTLP/JSON writes int64), doubles and arrays
 * of them. The file's numbers come through cJSON as doubles: a whole number
 * becomes an intValue unless the attribute is defined as a double.
 */
#include "export/otlp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_int.h"

/* Attributes that are doubles even when the value is whole (OpenTelemetry's, xperf's cost). */
static const char *const double_attrs[] = { "gen_ai.response.time_to_first_chunk",
					    "xperf.cost.usd" };

static int is_double_attr(const char *key)
{
	for (size_t i = 0; i < sizeof(double_attrs) / sizeof(double_attrs[0]); i++)
		if (!strcmp(key, double_attrs[i]))
			return 1;
	return 0;
}

static cJSON *any_value(const cJSON *v, int as_double)
{
	cJSON *any = cJSON_CreateObject(), *list;
	const cJSON *e;
	char text[24];
	int64_t i;

	if (cJSON_IsNumber(v) && !as_double && v->valuedouble == floor(v->valuedouble) &&
	    fabs(v->valuedouble) < 9.2e18 && !xp_json_get_i64(v, &i)) {
		snprintf(text, sizeof(text), "%lld", (long long)i);
		cJSON_AddStringToObject(any, "intValue", text);
	} else if (cJSON_IsNumber(v))
		cJSON_AddNumberToObject(any, "doubleValue", v->valuedouble);
	else if (cJSON_IsBool(v))
		cJSON_AddBoolToObject(any, "boolValue", cJSON_IsTrue(v));
	else if (cJSON_IsArray(v)) {
		list = cJSON_AddArrayToObject(cJSON_AddObjectToObject(any, "arrayValue"), "values");
		cJSON_ArrayForEach(e, v) cJSON_AddItemToArray(list, any_value(e, as_double));
	} else
		cJSON_AddStringToObject(any, "stringValue", cJSON_GetStringValue(v));
	return any;
}

static void add(cJSON *attrs, const char *key, cJSON *any)
{
	cJSON *kv = xp_json_item(attrs);

	cJSON_AddStringToObject(kv, "key", key);
	cJSON_AddItemToObject(kv, "value", any);
}

void xe_otlp_attr(cJSON *attrs, const char *key, const cJSON *v)
{
	add(attrs, key, any_value(v, is_double_attr(key)));
}

void xe_otlp_attr_take(cJSON *attrs, const char *key, cJSON *v)
{
	xe_otlp_attr(attrs, key, v);
	cJSON_Delete(v);
}

void xe_otlp_attr_str(cJSON *attrs, const char *key, const char *s)
{
	cJSON *any = cJSON_CreateObject();

	cJSON_AddStringToObject(any, "stringValue", s);
	add(attrs, key, any);
}

void xe_otlp_attr_map(cJSON *attrs, const char *prefix, const cJSON *obj)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, obj)
	{
		size_t len = strlen(prefix) + strlen(m->string) + 1;
		char *key = malloc(len); /* names are the file's: any length */

		if (!key)
			continue; /* out of memory: lost, as a failed cJSON allocation would be */
		snprintf(key, len, "%s%s", prefix, m->string);
		xe_otlp_attr(attrs, key, m);
		free(key);
	}
}
