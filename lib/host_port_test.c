/* SPDX-License-Identifier: MIT */
/* host_port_test.c - authorities as server.address + server.port. */
#include "lib/host_port.h"

#include <string.h>

#include "lib/test_check.h"

static void expect(const char *in, const char *host, int port)
{
	char got[64];
	int p;

	xp_host_port(in, got, sizeof(got), &p);
	CHECK(!strcmp(got, host) && p == port, "%s -> %s %d, want %s %d", in, got, p, host, port);
}

int main(void)
{
	expect("api.anthropic.com", "api.anthropic.com", 0);
	expect("localhost:8443", "localhost", 8443);
	expect("127.0.0.1:443", "127.0.0.1", 443);
	expect("[::1]:8443", "::1", 8443);
	expect("[::1]", "::1", 0);
	expect("::1", "::1", 0);
	expect("host:", "host:", 0);
	expect("host:99999", "host:99999", 0);
	expect("host:12x", "host:12x", 0);
	expect(":80", ":80", 0);
	expect("", "", 0);
	return test_failures != 0;
}
