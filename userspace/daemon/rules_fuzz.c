// SPDX-License-Identifier: MIT
/* rules_fuzz.c - the rules file parser and the matcher on arbitrary bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/daemon/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct xpd_rules r;
	const char *names[XPD_RULES_MAX];
	char *text = malloc(size + 1), err[256];

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	r.n = 0;
	xpd_rules_parse(&r, "fuzz", text, err, sizeof(err));
	xpd_rules_exact_names(&r, names, XPD_RULES_MAX);
	xpd_rules_match(&r, text, text, size);
	free(text);
	return 0;
}
