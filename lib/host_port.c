/* SPDX-License-Identifier: MIT */
/* host_port.c - HTTP authority -> server.address + server.port. */
#include "lib/host_port.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void xp_host_port(const char *authority, char *host, size_t len, int *port)
{
	const char *colon = strrchr(authority, ':');
	size_t n = strlen(authority);
	char *end = NULL;
	long p = colon ? strtol(colon + 1, &end, 10) : 0;

	*port = 0;
	/* a port: digits after the last colon, which is the only one or follows "]" */
	if (colon && colon > authority && colon[1] && !*end && p > 0 && p <= 65535 &&
	    (strchr(authority, ':') == colon || colon[-1] == ']')) {
		*port = (int)p;
		n = (size_t)(colon - authority);
	}
	if (n >= 2 && authority[0] == '[' && authority[n - 1] == ']') {
		authority++;
		n -= 2;
	}
	snprintf(host, len, "%.*s", (int)n, authority);
}
