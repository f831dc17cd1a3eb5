// SPDX-License-Identifier: MIT
/*
 * ssl_bench.c - cost of one SSL_write of 100 bytes to a local TLS sink:
 * connects to 127.0.0.1:PORT (sink.go: Go crypto/tls, so the sink never
 * hits a libssl uprobe itself), warms up, then times N writes and prints
 * the mean nanoseconds per SSL_write on stdout: CPU time of this process
 * (user + system: the uprobe traps and BPF programs are charged here, and
 * it does not count waiting for a CPU on a shared machine), then wall time.
 * Usage: ssl_bench PORT N
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/ssl.h>

static double now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char msg[100];
	long n = argc == 3 ? strtol(argv[2], NULL, 10) : 0;
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	double t0, c0;
	SSL *ssl;
	int fd;

	if (n <= 0 || !ctx)
		return 64;
	memset(msg, 'x', sizeof(msg));
	sa.sin_port = htons(atoi(argv[1]));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return 1;
	ssl = SSL_new(ctx);
	SSL_set_fd(ssl, fd);
	if (SSL_connect(ssl) != 1)
		return 1;
	for (int i = 0; i < 1000; i++)
		if (SSL_write(ssl, msg, sizeof(msg)) != sizeof(msg))
			return 1;
	t0 = now_ns(CLOCK_MONOTONIC);
	c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (long i = 0; i < n; i++)
		if (SSL_write(ssl, msg, sizeof(msg)) != sizeof(msg))
			return 1;
	printf("%.0f %.0f\n", (now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0) / n,
	       (now_ns(CLOCK_MONOTONIC) - t0) / n);
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	close(fd);
	return 0;
}
