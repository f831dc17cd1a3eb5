// SPDX-License-Identifier: MIT
/*
 * sni_test.c - xpc_sni_parse on real ClientHellos (made by python's ssl,
 * OpenSSL 3, in testdata/sni), every prefix of them, corruptions, and
 * non-TLS bytes.
 */
#include <stdio.h>
#include <string.h>

#include "lib/test_check.h"
#include "userspace/sni.h"

static size_t load(const char *path, uint8_t *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, cap, f) : 0;

	if (f)
		fclose(f);
	return n;
}

int main(void)
{
	uint8_t hello[4096], bad[4096];
	char name[XPC_SNI_MAX];
	size_t n = load("userspace/testdata/sni/python_anthropic.bin", hello, sizeof(hello));
	size_t first_ok = 0;

	CHECK(n > 100);
	CHECK(xpc_sni_parse(hello, n, name) == XPC_SNI_OK);
	CHECK(!strcmp(name, "api.anthropic.com"));
	/* Every prefix: TRUNCATED until the name is complete, then OK. */
	for (size_t len = 0; len < n; len++) {
		enum xpc_sni_result r = xpc_sni_parse(hello, len, name);

		CHECK(r == XPC_SNI_TRUNCATED || r == XPC_SNI_OK);
		if (r == XPC_SNI_OK && !first_ok)
			first_ok = len;
		if (first_ok)
			CHECK(r == XPC_SNI_OK);
	}
	CHECK(first_ok > 0 && first_ok < n);
	/* A length field that overflows its parent: INVALID, not a read past it. */
	memcpy(bad, hello, n);
	bad[6] = 0, bad[7] = 0, bad[8] = 48;	/* ClientHello of 48 bytes... */
	bad[43] = 0xff;				/* ...holding a 255-byte session_id */
	CHECK(xpc_sni_parse(bad, n, name) == XPC_SNI_INVALID);
	CHECK(name[0] == '\0');
	n = load("userspace/testdata/sni/python_nosni.bin", hello, sizeof(hello));
	CHECK(n > 100);
	CHECK(xpc_sni_parse(hello, n, name) == XPC_SNI_ABSENT);
	CHECK(xpc_sni_parse((const uint8_t *)"GET / HTTP/1.1\r\n", 16, name) == XPC_SNI_NOT_TLS);
	CHECK(xpc_sni_parse((const uint8_t *)"\x17\x03\x03\x00\x10", 5, name) == XPC_SNI_NOT_TLS);
	CHECK(xpc_sni_parse(hello, 0, name) == XPC_SNI_TRUNCATED);
	CHECK(!strcmp(xpc_sni_result_str(XPC_SNI_ABSENT), "absent"));
	return test_failures != 0;
}
