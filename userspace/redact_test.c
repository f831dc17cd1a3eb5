// SPDX-License-Identifier: MIT
/* redact_test.c - credential headers never survive xpc_redact_http1. */
#include <string.h>

#include "lib/test_check.h"
#include "userspace/redact.h"

static const char *redact(const char *in, char *out, size_t cap, size_t *n)
{
	size_t len = xpc_redact_http1(in, strlen(in), out, cap - 1, n);

	out[len] = '\0';
	return out;
}

int main(void)
{
	char out[1024];
	size_t n;
	const char *req = "POST /v1/messages HTTP/1.1\r\nHost: api.anthropic.com\r\n"
			  "x-api-key: sk-ant-api03-SECRET\r\nAUTHORIZATION:Bearer SECRET2\r\n"
			  "api-key : SECRET3\r\nX-Goog-Api-Key: SECRET4\r\nContent-Length: 2\r\n\r\n"
			  "{\"authorization\": \"in body, not a header\"}";

	redact(req, out, sizeof(out), &n);
	CHECK(n == 4);
	CHECK(!strstr(out, "SECRET"));
	CHECK(strstr(out, "x-api-key: " XPC_REDACTED "\r\n"));
	CHECK(strstr(out, "AUTHORIZATION: " XPC_REDACTED "\r\n"));
	CHECK(strstr(out, "Host: api.anthropic.com\r\n"));
	CHECK(strstr(out, "Content-Length: 2\r\n\r\n{\"authorization\": \"in body"));
	/* A header cut by the end of the buffer is redacted to the end. */
	redact("GET / HTTP/1.1\r\nAuthorization: Bearer sk-pa", out, sizeof(out), &n);
	CHECK(n == 1 && !strstr(out, "sk-pa"));
	/* A name is a secret's by its words (lib/secrets.h): x-api-keys, x-request-id are kept;
	 * cookies and x-auth-token are not. */
	redact("x-api-keys: a\r\nx-request-id: b\r\n", out, sizeof(out), &n);
	CHECK(n == 0 && !strcmp(out, "x-api-keys: a\r\nx-request-id: b\r\n"));
	redact("Cookie: s=LEAK\r\nSet-Cookie: t=LEAK\r\nx-auth-token: LEAK\r\n", out, sizeof(out),
	       &n);
	CHECK(n == 3 && !strstr(out, "LEAK"));
	/* A request line's query: parameters named like a secret, wherever they stand. */
	redact("GET /v1/models?key=LEAK&alt=sse&api_key=LEAK2 HTTP/1.1\r\nHost: h\r\n", out,
	       sizeof(out), &n);
	CHECK(n == 2 && !strcmp(out, "GET /v1/models?key=" XPC_REDACTED
				     "&alt=sse&api_key=" XPC_REDACTED " HTTP/1.1\r\nHost: h\r\n"));
	redact("POST /v1/messages?beta=true HTTP/1.1\r\n", out, sizeof(out), &n);
	CHECK(n == 0 && !strcmp(out, "POST /v1/messages?beta=true HTTP/1.1\r\n"));
	/* Output is cut at out_cap, never overrun. */
	CHECK(xpc_redact_http1(req, strlen(req), out, 10, NULL) == 10);
	CHECK(xpc_redact_header_name("Proxy-Authorization", 19));
	CHECK(!xpc_redact_header_name("authorizatio", 12));
	return test_failures != 0;
}
