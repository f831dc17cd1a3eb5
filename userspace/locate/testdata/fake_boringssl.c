// SPDX-License-Identifier: MIT
/*
 * fake_boringssl.c - BoringSSL's shapes and nothing else: ERR_put_error
 * calls naming ssl/ssl_lib.cc with SSL_write's, ssl_read_impl's and
 * SSL_read's reason codes, in functions that do no TLS at all. The
 * locator finds "SSL_write"/"SSL_read" here (locate_test); at run time the
 * self-check must refuse them. Also the fuzzer's seed.
 */
static const char file[] = "../../vendor/boringssl/ssl/ssl_lib.cc";
volatile int sink;

__attribute__((noinline)) void ERR_put_error(int lib, int unused, int reason, const char *f,
					     unsigned line)
{
	sink = lib + unused + reason + f[0] + (int)line;
}

__attribute__((noinline)) int read_impl(int *s)
{
	if (!s) {
		ERR_put_error(16, 0, 226, file, 1);
		return -1;
	}
	if (*s == 1) {
		ERR_put_error(16, 0, 215, file, 2);
		return -1;
	}
	return 1;
}

__attribute__((noinline)) int fake_write(int *s, const void *buf, int n)
{
	if (!s) {
		ERR_put_error(16, 0, 226, file, 3);
		return -1;
	}
	if (*s == 2) {
		ERR_put_error(16, 0, 215, file, 4);
		return -1;
	}
	if (n < 0) {
		ERR_put_error(16, 0, 111, file, 5);
		return -1;
	}
	sink = ((const char *)buf)[0];
	return n;
}

__attribute__((noinline)) int fake_read(int *s, void *buf, int n)
{
	if (s && *s == 3) {
		ERR_put_error(16, 0, 66, file, 6);
		return -1;
	}
	((char *)buf)[0] = (char)n;
	return read_impl(s);
}

int main(void)
{
	char b[4] = "abc";
	int x = sink;

	return fake_write(&x, b, 3) + fake_read(&x, b, 3);
}
