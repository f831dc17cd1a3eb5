// SPDX-License-Identifier: MIT
/*
 * emit.c - the export writer. Output is streamed item by item (a turn's
 * events are freed once written), each printed by cJSON into one buffer
 * that grows to the largest item, so that 10k spans cost no 10k mallocs;
 * exact integers (lib/json_int.h: start_ns past 2^53) print as written.
 */
#include "export/walk.h"

#include <inttypes.h>
#include <stdlib.h>

#include "lib/json_int.h"

#define XE_BUF_MIN 4096

static int print(struct xe_out *o, cJSON *item)
{
	for (;;) {
		if (o->cap && xp_json_print_into(item, o->buf, (int)o->cap, 0))
			return 0;
		size_t cap = o->cap ? o->cap * 2 : XE_BUF_MIN;
		char *p = cap <= INT32_MAX ? realloc(o->buf, cap) : NULL;

		if (!p)
			return -1;
		o->buf = p;
		o->cap = cap;
	}
}

void xe_put(struct xe_out *o, cJSON *item)
{
	if (!o->failed && (!item || print(o, item)))
		o->failed = 1;
	if (!o->failed) {
		if (o->nitems++)
			fputs(",\n", o->f);
		fputs(o->buf, o->f);
	}
	cJSON_Delete(item);
}

void xe_puts(struct xe_out *o, const char *text)
{
	fputs(text, o->f);
}

void xe_out_list_reset(struct xe_out *o)
{
	o->nitems = 0;
}

cJSON *xe_u64_raw(uint64_t v)
{
	char text[24];

	snprintf(text, sizeof(text), "%" PRIu64, v);
	return cJSON_CreateRaw(text);
}
