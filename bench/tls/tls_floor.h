/* SPDX-License-Identifier: MIT */
/* tls_floor.h - the record of tls_floor.bpf.c's capture programs (fixed size). */
#ifndef XPERF_BENCH_TLS_FLOOR_H
#define XPERF_BENCH_TLS_FLOOR_H

#define CAPTURE_BYTES 100	/* floor.sh's writes: SSL_write of 100 bytes */

struct floor_rec {
	__u32 len;		/* bytes in data */
	char data[CAPTURE_BYTES];
};

#endif /* XPERF_BENCH_TLS_FLOOR_H */
