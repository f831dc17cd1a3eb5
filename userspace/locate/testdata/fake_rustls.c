// SPDX-License-Identifier: MIT
/*
 * fake_rustls.c - rustls's shapes and nothing else: a panic Location
 * naming ".../rustls-0.0.0/src/record_layer.rs" loaded by two "sealing"
 * functions that both call a send_msg which calls one of them back, and
 * a "take_received_plaintext" sharing their queue helpers, called by a
 * "traffic state" that sends, and the write function calling through a
 * Box<dyn>-like {data, vtable} pair inside its first argument (the
 * connection id's offset). No TLS at all. The locator finds the two
 * boundary functions here (locate_test checks them against this file's
 * symbols); at run time the self-check would refuse them. Also a seed of
 * the fuzzer.
 */
#include <stddef.h>
#include <stdint.h>

struct location {
	const char *file;
	size_t len;
	uint32_t line, col;
};

static const char path[] = "/registry/rustls-0.0.0/src/record_layer.rs";
static const struct location loc = { path, sizeof(path) - 1, 190, 14 };
volatile uintptr_t sink;

/* A Box<dyn MessageEncrypter>: {data, vtable}; vtable: drop, size, align, encrypt. */
struct boxed {
	void *data;
	void (*const *vtable)(void *);
};

struct common_state {
	uintptr_t cs[5];
	struct boxed enc;
};

__attribute__((noinline)) void panic_at(const struct location *l)
{
	sink = (uintptr_t)l->file + l->len;
}

__attribute__((noinline)) void queue_grow(uintptr_t *q)
{
	sink += q[0];
}

__attribute__((noinline)) void vec_drop(uintptr_t *v)
{
	sink += v[1];
}

void send_msg(uintptr_t *cs, int m);

__attribute__((noinline)) void send_msg_encrypt(uintptr_t *cs, int m)
{
	if (cs[0] > 100)
		send_msg(cs, 0);	/* close_notify */
	if (!cs[1])
		panic_at(&loc);
	queue_grow(cs + 2);
	vec_drop(cs + 3);
	sink += m;
}

__attribute__((noinline)) void send_msg(uintptr_t *cs, int m)
{
	sink += m;
	send_msg_encrypt(cs, m + 1);
}

/* Like release Rust code, never instrumented (the --config=asan build would be). */
__attribute__((noinline, no_sanitize("address", "undefined"))) size_t
send_appdata_encrypt(struct common_state *st, const uint8_t *p, size_t n)
{
	uintptr_t *cs = st->cs;

	if (cs[0] > 100)
		send_msg(cs, 0);
	if (!cs[1])
		panic_at(&loc);
	queue_grow(cs + 2);
	vec_drop(cs + 3);
	sink += p[0];
	st->enc.vtable[3](st->enc.data);
	return n;
}

__attribute__((noinline)) void take_received_plaintext(uintptr_t *cs, uintptr_t *vec)
{
	queue_grow(cs + 4);
	vec_drop(vec);
}

__attribute__((noinline)) void traffic_handle(uintptr_t *cs, uintptr_t *vec)
{
	if (vec[2])
		take_received_plaintext(cs, vec);
	else
		send_msg(cs, 3);
}

static void encrypt(void *data)
{
	sink += (uintptr_t)data;
}

static void (*const vtable[4])(void *) = { encrypt, 0, 0, encrypt };

int main(void)
{
	struct common_state st = { .enc = { &st, vtable } };
	uintptr_t vec[3] = { 0 };

	traffic_handle(st.cs, vec);
	return (int)send_appdata_encrypt(&st, (const uint8_t *)"x", 1) - 1;
}
