// SPDX-License-Identifier: MIT
/*
 * ssl_ex_only.c - test data for tls_libs_test: a shared object that exports
 * SSL_write_ex and SSL_read_ex only, like a static OpenSSL 3 build whose
 * application never calls the int API. The bodies are never run.
 */
#include <stddef.h>

int SSL_write_ex(void *s, const void *buf, size_t num, size_t *written);
int SSL_read_ex(void *s, void *buf, size_t num, size_t *readbytes);

int SSL_write_ex(void *s, const void *buf, size_t num, size_t *written)
{
	(void)s, (void)buf;
	*written = num;
	return 1;
}

int SSL_read_ex(void *s, void *buf, size_t num, size_t *readbytes)
{
	(void)s, (void)buf, (void)num;
	*readbytes = 0;
	return 0;
}
