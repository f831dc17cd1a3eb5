/* SPDX-License-Identifier: MIT */
/* msg.c - the header whitelist shared by the HTTP/1.1 and HTTP/2 parsers. */
#define _GNU_SOURCE
#include "proto/msg.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void pr_head_copy(char *dst, size_t cap, const char *src, size_t len)
{
	while (len > 0 && (*src == ' ' || *src == '\t')) {
		src++;
		len--;
	}
	while (len > 0 && (src[len - 1] == ' ' || src[len - 1] == '\t' || src[len - 1] == '\r'))
		len--;
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static int name_is(const char *name, size_t nlen, const char *want)
{
	return strlen(want) == nlen && !strncasecmp(name, want, nlen);
}

/* Headers agents name their session or conversation with (an id, not a secret). */
static const char *const session_headers[] = {
	"x-claude-code-session-id", "session_id", "session-id", "x-session-id",
	"conversation_id", "x-conversation-id", NULL,
};

static int is_session_header(const char *name, size_t nlen)
{
	for (const char *const *h = session_headers; *h; h++)
		if (name_is(name, nlen, *h))
			return 1;
	return 0;
}

void pr_head_set(struct pr_http_head *h, const char *name, size_t nlen, const char *val,
		 size_t vlen)
{
	char num[32];

	if (name_is(name, nlen, "host") || name_is(name, nlen, ":authority")) {
		pr_head_copy(h->authority, sizeof(h->authority), val, vlen);
	} else if (name_is(name, nlen, "content-type")) {
		pr_head_copy(h->content_type, sizeof(h->content_type), val, vlen);
	} else if (name_is(name, nlen, "retry-after")) {
		pr_head_copy(h->retry_after, sizeof(h->retry_after), val, vlen);
	} else if (name_is(name, nlen, "content-encoding")) {
		pr_head_copy(h->content_encoding, sizeof(h->content_encoding), val, vlen);
	} else if (is_session_header(name, nlen)) {
		if (!h->session_id[0])
			pr_head_copy(h->session_id, sizeof(h->session_id), val, vlen);
	} else if (name_is(name, nlen, "content-length")) {
		pr_head_copy(num, sizeof(num), val, vlen);
		h->content_length = strtoll(num, NULL, 10);
		if (h->content_length < 0)
			h->content_length = -1;
	} else if (name_is(name, nlen, "transfer-encoding")) {
		pr_head_copy(num, sizeof(num), val, vlen);
		h->chunked = strcasestr(num, "chunked") != NULL;
	} else if (name_is(name, nlen, ":status")) {
		pr_head_copy(num, sizeof(num), val, vlen);
		h->status = atoi(num);
	} else if (name_is(name, nlen, ":path")) {
		pr_head_copy(h->path, sizeof(h->path), val, vlen);
	} else if (name_is(name, nlen, ":method")) {
		pr_head_copy(h->method, sizeof(h->method), val, vlen);
	}
}
