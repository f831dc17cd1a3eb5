/* SPDX-License-Identifier: MIT */
/* listen_addr.h - a --listen value ("host:port", "[v6]:port") as a socket address. */
#ifndef XPERF_LIB_LISTEN_ADDR_H
#define XPERF_LIB_LISTEN_ADDR_H

#include <netdb.h>

/* The address to bind for listen (freeaddrinfo it); NULL when invalid. Port 0: any. */
struct addrinfo *xp_listen_addr(const char *listen);

#endif /* XPERF_LIB_LISTEN_ADDR_H */
