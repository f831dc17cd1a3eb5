// SPDX-License-Identifier: MIT
/*
 * ssl_dlopen.c - the libssl API tls_client.c calls, resolved at its first
 * call from copies of the system libraries in $TLS_LIB_DIR, renamed as a
 * Python wheel bundles them (libcrypto-late.so.3, libssl-late.so.3): the
 * process starts with no libssl mapped and later maps one that is in no
 * standard directory, under a name and inode never seen. Linked with
 * tls_client.c as tls_client_dlopen, nothing else changes in the client.
 * It waits $TLS_DLOPEN_WAIT_MS before the dlopen (the scan a tracer makes
 * at exec has come and gone) and $TLS_CALL_WAIT_MS (or until probed:
 * $TLS_WAIT_PROBED) after it, as an `import`
 * runs long before the first request (bpf/TLS.md: the window before the
 * probes attach; 0 makes the first calls race the attach).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

static void *load(const char *dir, const char *name, int flags)
{
	char path[4096];
	void *h;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	h = dlopen(path, flags);
	if (!h) {
		fprintf(stderr, "ssl_dlopen: %s\n", dlerror());
		exit(1);
	}
	return h;
}

/* libcrypto first, global: libssl's DT_NEEDED libcrypto.so.3 is its soname. */
static void wait_ms(const char *env)
{
	const char *v = getenv(env);
	long ms = v ? strtol(v, NULL, 10) : 0;
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
}

/*
 * $TLS_WAIT_PROBED: wait (60 s at most) until each function a tracer's tls
 * module probes starts with a breakpoint (int3) here, SSL_free the last it
 * attaches (userspace/tls_probes.c), instead of a fixed $TLS_CALL_WAIT_MS:
 * the probes of a library mapped late took over 1.5 s under load.
 */
static void wait_probed(void *h)
{
	static const char *const probed[] = { "SSL_write", "SSL_read", "SSL_write_ex",
					      "SSL_read_ex", "SSL_free" };
	struct timespec tick = { 0, 10 * 1000000 };

	for (int i = 0; i < 6000; i++) {
		size_t n = 0;

		for (size_t k = 0; k < sizeof(probed) / sizeof(probed[0]); k++) {
			const unsigned char *code = dlsym(h, probed[k]);

			n += code && *code == 0xcc;
		}
		if (n == sizeof(probed) / sizeof(probed[0]))
			return;
		nanosleep(&tick, NULL);
	}
	fprintf(stderr, "ssl_dlopen: no breakpoints after 60 s\n");
}

static void *libssl(void)
{
	static void *h;
	const char *dir = getenv("TLS_LIB_DIR");

	if (h)
		return h;
	if (!dir) {
		fprintf(stderr, "ssl_dlopen: TLS_LIB_DIR is not set\n");
		exit(1);
	}
	wait_ms("TLS_DLOPEN_WAIT_MS");
	load(dir, "libcrypto-late.so.3", RTLD_NOW | RTLD_GLOBAL);
	h = load(dir, "libssl-late.so.3", RTLD_NOW);
	if (getenv("TLS_WAIT_PROBED"))
		wait_probed(h);
	else
		wait_ms("TLS_CALL_WAIT_MS");
	return h;
}

static void *sym(const char *name)
{
	void *f = dlsym(libssl(), name);

	if (!f) {
		fprintf(stderr, "ssl_dlopen: no %s\n", name);
		exit(1);
	}
	return f;
}

/* One forwarder per function: resolved once, then a plain indirect call. */
#define FWD(ret, name, params, args)                                   \
	ret name params                                                \
	{                                                              \
		static ret(*fn) params;                                \
		if (!fn)                                               \
			fn = (ret(*) params)sym(#name);                \
		return fn args;                                        \
	}
#define FWD_VOID(name, params, args)                                   \
	void name params                                               \
	{                                                              \
		static void(*fn) params;                               \
		if (!fn)                                               \
			fn = (void(*) params)sym(#name);               \
		fn args;                                               \
	}

FWD(const SSL_METHOD *, TLS_client_method, (void), ())
FWD(SSL_CTX *, SSL_CTX_new, (const SSL_METHOD *m), (m))
FWD(int, SSL_CTX_load_verify_locations, (SSL_CTX *c, const char *f, const char *p), (c, f, p))
FWD_VOID(SSL_CTX_set_verify, (SSL_CTX *c, int mode, SSL_verify_cb cb), (c, mode, cb))
FWD_VOID(SSL_CTX_free, (SSL_CTX *c), (c))
FWD(SSL *, SSL_new, (SSL_CTX *c), (c))
FWD(int, SSL_set_fd, (SSL *s, int fd), (s, fd))
FWD(long, SSL_ctrl, (SSL *s, int cmd, long l, void *p), (s, cmd, l, p))
FWD(int, SSL_set1_host, (SSL *s, const char *h), (s, h))
FWD(int, SSL_connect, (SSL *s), (s))
FWD(int, SSL_write_ex, (SSL *s, const void *b, size_t n, size_t *w), (s, b, n, w))
FWD(int, SSL_read_ex, (SSL *s, void *b, size_t n, size_t *r), (s, b, n, r))
FWD(int, SSL_write, (SSL *s, const void *b, int n), (s, b, n))
FWD(int, SSL_read, (SSL *s, void *b, int n), (s, b, n))
FWD(int, SSL_shutdown, (SSL *s), (s))
FWD_VOID(SSL_free, (SSL *s), (s))
FWD_VOID(ERR_print_errors_fp, (FILE *f), (f))
