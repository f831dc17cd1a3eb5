/* SPDX-License-Identifier: MIT */
/*
 * host_port.h - an HTTP authority ("api.openai.com:443", "[::1]:8443",
 * "localhost") as OpenTelemetry's server.address (no port, no brackets) and
 * server.port.
 */
#ifndef XPERF_LIB_HOST_PORT_H
#define XPERF_LIB_HOST_PORT_H

#include <stddef.h>

/*
 * host (at most len - 1 bytes) and *port (0 when the authority names none) of
 * authority. A bare IPv6 address ("::1") has no port.
 */
void xp_host_port(const char *authority, char *host, size_t len, int *port);

#endif /* XPERF_LIB_HOST_PORT_H */
