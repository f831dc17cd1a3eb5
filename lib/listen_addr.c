// SPDX-License-Identifier: MIT
/* listen_addr.c - "host:port" or "[v6 address]:port" -> a socket address (listen_addr.h). */
#include "lib/listen_addr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct addrinfo *xp_listen_addr(const char *listen)
{
	const struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
					.ai_flags = AI_NUMERICSERV | AI_PASSIVE };
	char host[256];
	const char *colon = strrchr(listen, ':'), *h = host;
	struct addrinfo *res = NULL;
	size_t hl;

	if (!colon || colon == listen || !colon[1])
		return NULL;
	hl = (size_t)(colon - listen);
	if (listen[0] == '[' && listen[hl - 1] == ']')
		snprintf(host, sizeof(host), "%.*s", (int)hl - 2, listen + 1);
	else
		snprintf(host, sizeof(host), "%.*s", (int)hl, listen);
	if (colon[1] < '0' || colon[1] > '9' || strtol(colon + 1, NULL, 10) > 65535 ||
	    getaddrinfo(h, colon + 1, &hints, &res))
		return NULL;
	return res;
}
