// SPDX-License-Identifier: MIT
/*
 * ssl_bench.c - cost of one SSL_write of SIZE bytes (default 100) to a
 * local TLS sink: connects to 127.0.0.1:PORT (sink.go: Go crypto/tls, so the
 * sink never hits a libssl uprobe itself), warms up, then times N writes
 * (RATE per second when given, else back to back) and prints the mean
 * nanoseconds per SSL_write on stdout: CPU time of this process (user +
 * system: the uprobe traps and BPF programs are charged here, and it does
 * not count waiting for a CPU on a shared machine), then wall time.
 * Usage: ssl_bench PORT N [SIZE [RATE]]
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

/* Sleep until `i` writes at `rate` per second after t0 (absolute: no drift). */
static void pace(double t0, long i, long rate)
{
	double at = t0 + (double)i * 1e9 / (double)rate;
	struct timespec ts = { (time_t)(at / 1e9), (long)(at - (double)(time_t)(at / 1e9) * 1e9) };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* One whole SSL_write of len bytes (a partial write would measure something else). */
static int write_all(SSL *ssl, const char *msg, long len)
{
	return SSL_write(ssl, msg, (int)len) == len ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	long n = argc >= 3 ? strtol(argv[2], NULL, 10) : 0;
	long size = argc >= 4 ? strtol(argv[3], NULL, 10) : 100;
	long rate = argc >= 5 ? strtol(argv[4], NULL, 10) : 0;
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	char *msg = size > 0 && size <= (1l << 30) ? malloc((size_t)size) : NULL;
	double t0, c0;
	SSL *ssl;
	int fd;

	if (argc < 3 || argc > 5 || n <= 0 || rate < 0 || !msg || !ctx)
		return 64;
	memset(msg, 'x', (size_t)size);
	sa.sin_port = htons(atoi(argv[1]));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return 1;
	ssl = SSL_new(ctx);
	SSL_set_fd(ssl, fd);
	if (SSL_connect(ssl) != 1)
		return 1;
	for (int i = 0; i < (size > 4096 ? 10 : 1000); i++)
		if (write_all(ssl, msg, size))
			return 1;
	t0 = now_ns(CLOCK_MONOTONIC);
	c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (long i = 0; i < n; i++) {
		if (rate)
			pace(t0, i, rate);
		if (write_all(ssl, msg, size))
			return 1;
	}
	printf("%.0f %.0f\n", (now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0) / n,
	       (now_ns(CLOCK_MONOTONIC) - t0) / n);
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	close(fd);
	free(msg);
	return 0;
}
