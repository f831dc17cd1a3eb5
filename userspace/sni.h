/* SPDX-License-Identifier: MIT */
/*
 * sni.h - the server name (SNI) of a TLS ClientHello, read from the first
 * bytes a connection sent (sock.h XP_EV_SOCK_SNI). Pure: no I/O, no state.
 */
#ifndef XPERF_USERSPACE_SNI_H
#define XPERF_USERSPACE_SNI_H

#include <stddef.h>
#include <stdint.h>

enum xpc_sni_result {
	XPC_SNI_OK = 0,		/* out holds the host name */
	XPC_SNI_ABSENT = 1,	/* a ClientHello without a server_name extension */
	XPC_SNI_TRUNCATED = 2,	/* a ClientHello, cut before its SNI */
	XPC_SNI_NOT_TLS = 3,	/* not a TLS handshake record with a ClientHello */
	XPC_SNI_INVALID = 4,	/* a ClientHello whose fields do not add up */
};

/* The longest DNS name (253) with room for the NUL. */
#define XPC_SNI_MAX 256

/*
 * Parse the ClientHello at the start of buf (len bytes, may be a prefix)
 * and copy the first host_name of its server_name extension into out
 * (NUL-terminated; printable ASCII only, else XPC_SNI_INVALID). out must
 * hold XPC_SNI_MAX bytes; it is "" unless the result is XPC_SNI_OK.
 */
enum xpc_sni_result xpc_sni_parse(const uint8_t *buf, size_t len, char out[XPC_SNI_MAX]);

/* A static name for a result ("ok", "absent", ...). */
const char *xpc_sni_result_str(enum xpc_sni_result r);

#endif /* XPERF_USERSPACE_SNI_H */
