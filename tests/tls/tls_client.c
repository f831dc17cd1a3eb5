// SPDX-License-Identifier: MIT
/*
 * tls_client.c - a small HTTPS/1.1 client on the system libssl for the
 * capture tests: request 1 sends BODY_BYTES over SSL_write_ex in uneven
 * chunks and reads the response with SSL_read_ex; request 2 uses the int
 * API (SSL_write/SSL_read). Both on one connection, so the capture must
 * keep byte positions across calls of either kind.
 * Usage: tls_client PORT CA_PEM BODY_BYTES RESP_BYTES
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

static int die(const char *what)
{
	fprintf(stderr, "tls_client: %s\n", what);
	ERR_print_errors_fp(stderr);
	exit(1);
}

/* Read one response (headers + Content-Length body); ex: the _ex API. */
static void read_response(SSL *ssl, int ex)
{
	static char buf[1 << 16];
	size_t have = 0, total = 0, want = 0, n;
	char *end, *cl;
	int r;

	while (!want || total < want) {
		if (ex) {
			r = SSL_read_ex(ssl, buf + have, sizeof(buf) - 1 - have, &n);
		} else {
			r = SSL_read(ssl, buf + have, sizeof(buf) - 1 - have);
			n = r > 0 ? (size_t)r : 0;
		}
		if (r <= 0)
			die("read");
		total += n;
		if (want)
			continue;	/* body bytes: only counted */
		have += n;
		buf[have] = '\0';
		end = strstr(buf, "\r\n\r\n");
		if (!end)
			continue;
		cl = strcasestr(buf, "Content-Length:");
		want = (size_t)(end + 4 - buf) + strtoul(cl ? cl + 15 : "0", NULL, 10);
		have = 0;
	}
}

int main(int argc, char **argv)
{
	size_t body_len = argc > 4 ? strtoul(argv[3], NULL, 10) : 0, off = 0, chunk = 1000, w;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char head[256], *body;
	SSL_CTX *ctx;
	SSL *ssl;
	int fd;

	if (argc != 5)
		return 64;
	sa.sin_port = htons(atoi(argv[1]));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ctx = SSL_CTX_new(TLS_client_method());
	if (!ctx || !SSL_CTX_load_verify_locations(ctx, argv[2], NULL))
		die("CA");
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("connect");
	ssl = SSL_new(ctx);
	SSL_set_fd(ssl, fd);
	SSL_set_tlsext_host_name(ssl, "localhost");
	SSL_set1_host(ssl, "localhost");
	if (SSL_connect(ssl) != 1)
		die("handshake");
	body = malloc(body_len + 1);
	for (size_t i = 0; i < body_len; i++)
		body[i] = 'a' + i * 31 % 26;
	snprintf(head, sizeof(head), "POST /c HTTP/1.1\r\nHost: localhost\r\nContent-Length: %zu\r\n"
		 "X-Resp-Bytes: %s\r\n\r\n", body_len, argv[4]);
	if (!SSL_write_ex(ssl, head, strlen(head), &w))
		die("write head");
	/* Uneven chunks, growing to 200 KiB: several records per call. */
	while (off < body_len) {
		size_t n = body_len - off < chunk ? body_len - off : chunk;

		if (!SSL_write_ex(ssl, body + off, n, &w))
			die("write body");
		off += w;
		chunk = chunk * 3 < 200000 ? chunk * 3 : 200000;
	}
	read_response(ssl, 1);
	snprintf(head, sizeof(head), "GET /two HTTP/1.1\r\nHost: localhost\r\nX-Resp-Bytes: 5000"
		 "\r\n\r\n");
	if (SSL_write(ssl, head, strlen(head)) <= 0)
		die("write 2");
	read_response(ssl, 0);
	SSL_shutdown(ssl);
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	close(fd);
	free(body);
	return 0;
}
