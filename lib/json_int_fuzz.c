// SPDX-License-Identifier: MIT
/*
 * json_int_fuzz.c - xp_json_parse on arbitrary bytes: every kept literal is
 * the text of its own node (the pairing holds), and the printed document
 * parses again with the pairing still holding.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/json_int.h"

static void check_pairing(const cJSON *n)
{
	for (; n; n = n->next) {
		if (cJSON_IsNumber(n) && n->valuestring &&
		    strtod(n->valuestring, NULL) != n->valuedouble)
			abort();
		check_pairing(n->child);
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	cJSON *root = xp_json_parse((const char *)data, size), *back;
	char *text;

	if (!root)
		return 0;
	check_pairing(root);
	text = xp_json_print(root, 0);
	back = text ? xp_json_parse(text, strlen(text)) : NULL;
	if (text && !back)
		abort();
	check_pairing(back);
	free(text);
	cJSON_Delete(back);
	cJSON_Delete(root);
	return 0;
}
