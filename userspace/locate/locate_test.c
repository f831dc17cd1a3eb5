// SPDX-License-Identifier: MIT
/*
 * locate_test.c - the locator on small ELFs with BoringSSL's shapes
 * (testdata/fake_boringssl.c) and rustls's (testdata/fake_rustls.c):
 * found (rustls's at its symbols' offsets); changed reason codes, a
 * renamed crate path, a broken call graph and every truncation fail with
 * a reason, never a crash; the disk cache answers a second locator; the
 * x86-64 decoder's lengths on known encodings.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/test_check.h"
#include "userspace/locate/locate.h"
#include "userspace/locate/x86_insn.h"

#define FAKE "userspace/locate/fake_boringssl"
#define FAKE_RUSTLS "userspace/locate/fake_rustls"

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || !(buf = malloc(st.st_size)) ||
	    read(fd, buf, st.st_size) != st.st_size)
		return NULL;
	close(fd);
	*len = st.st_size;
	return buf;
}

static void test_decoder(void)
{
	static const struct {
		const char *bytes;
		int len;	/* the decoder's answer; 0: invalid or cut off */
		size_t avail;	/* bytes it may read */
	} cases[] = {
		{ "\x48\x8d\x0d\x10\x00\x00\x00", 7, 7 },		/* lea rcx, [rip+0x10] */
		{ "\xb9\x10\x20\x40\x00", 5, 5 },			/* mov ecx, imm32 */
		{ "\x41\xb8\x04\x00\x00\x00", 6, 6 },		/* mov r8d, imm32 */
		{ "\xe8\x00\x00\x00\x00", 5, 5 },			/* call rel32 */
		{ "\xc5\xf8\x77", 3, 3 },				/* vzeroupper */
		{ "\x66\x2e\x0f\x1f\x84\x00\x00\x00\x00\x00", 10, 10 }, /* nopw cs:[rax+rax] */
		{ "\x62\xf1\x7c\x48\x10\x44\x24\x01", 8, 8 },	/* vmovups zmm0, [rsp+0x40] */
		{ "\x48\xb8\x01\x02\x03\x04\x05\x06\x07\x08", 10, 10 }, /* movabs rax, imm64 */
		{ "\xf6\x47\x12\x20", 4, 4 },			/* test byte [rdi+0x12], 0x20 */
		{ "\x0f\x84\x8a\x00\x00\x00", 6, 6 },		/* je rel32 */
		{ "\xc4\xe3\x79\x16\xc0\x01", 6, 6 },		/* vpextrd eax, xmm0, 1 */
		{ "\xc3", 1, 1 },
		{ "\x06", 0, 1 },					/* invalid in 64-bit mode */
		{ "\x48\x8d", 0, 2 },				/* cut off */
	};
	struct loc_x86_insn in;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (loc_x86_decode((const uint8_t *)cases[i].bytes, cases[i].avail, &in) !=
		    cases[i].len)
			CHECK(!"decoder length" || !fprintf(stderr, "case %zu\n", i));
	loc_x86_decode((const uint8_t *)"\x48\x8d\x0d\x10\x00\x00\x00", 7, &in);
	CHECK(in.rip_rel && in.disp == 0x10 && loc_x86_reg(&in) == 1);
}

static void test_found_and_broken(uint8_t *img, size_t len)
{
	struct loc_result r;
	size_t patched = 0;

	loc_image(img, len, &r);
	CHECK(r.status == LOC_FOUND && !strcmp(r.stack, "boringssl"));
	CHECK(r.write_off && r.read_off && r.write_off != r.read_off && r.write_off < len);
	for (size_t cut = 0; cut < len; cut += 61) {
		loc_image(img, cut, &r);
		CHECK(r.status != LOC_FOUND && r.why[0]);
	}
	/* SSL_HANDSHAKE_FAILURE (215) becomes 216 everywhere: nothing matches. */
	for (size_t i = 0; i + 5 <= len; i++)
		if (!memcmp(img + i, "\xba\xd7\x00\x00\x00", 5) && ++patched)
			img[i + 1] = 0xd8;
	loc_image(img, len, &r);
	CHECK(patched >= 2 && r.status == LOC_FAILED && strstr(r.why, "SSL_write"));
}

/* File offset (and size) of symbol name in .symtab (the fake keeps its symbols), 0 if absent. */
static uint64_t symbol_offset(const uint8_t *img, size_t len, const char *name, uint64_t *size)
{
	struct loc_elf_span sym, str;
	struct loc_elf_view v;
	uint64_t off = 0;

	if (loc_elf_view_open(&v, img, len) || loc_elf_view_section(&v, ".symtab", &sym) ||
	    loc_elf_view_section(&v, ".strtab", &str))
		return 0;
	for (size_t k = 0; k + 24 <= sym.len; k += 24) {
		uint32_t at;
		uint64_t value;

		memcpy(&at, sym.data + k, 4);
		memcpy(&value, sym.data + k + 8, 8);
		memcpy(size, sym.data + k + 16, 8);
		if (at < str.len && !strncmp((const char *)str.data + at, name, str.len - at) &&
		    !loc_elf_view_file_offset(&v, value, &off))
			return off;
	}
	return 0;
}

/* Replace every occurrence of from (n bytes) by to; how many. */
static size_t patch(uint8_t *img, size_t len, const char *from, const char *to, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i + n <= len; i++)
		if (!memcmp(img + i, from, n) && ++k)
			memcpy(img + i, to, n);
	return k;
}

static void test_rustls(uint8_t *img, size_t len)
{
	uint64_t size, write = symbol_offset(img, len, "send_appdata_encrypt", &size);
	uint64_t read_size, read = symbol_offset(img, len, "take_received_plaintext", &read_size);
	struct loc_result r;

	loc_image(img, len, &r);
	CHECK(r.status == LOC_FOUND && !strcmp(r.stack, "rustls"));
	CHECK(write && read && r.write_off == write && r.read_off == read);
	CHECK(r.conn_off == 5 * sizeof(uintptr_t) + 1);	/* fake_rustls.c: after cs[5] */
	CHECK(!strcmp(loc_fn_name(&r, true), "take_received_plaintext"));
	for (size_t cut = 0; cut < len; cut += 37) {
		loc_image(img, cut, &r);
		CHECK(r.status != LOC_FOUND && r.why[0]);
	}
	/* take_received_plaintext's calls become nops (decoded: a byte e8 may be inside another). */
	for (size_t i = read; i + 15 <= len && i < read + read_size;) {
		struct loc_x86_insn in;
		int n = loc_x86_decode(img + i, len - i, &in);

		if (n == 5 && in.map == LOC_X86_MAP_1 && (in.opcode == 0xe8 || in.opcode == 0xe9))
			memcpy(img + i, "\x0f\x1f\x44\x00\x00", 5);
		i += n ? (size_t)n : 1;
	}
	loc_image(img, len, &r);
	CHECK(r.status == LOC_FAILED && strstr(r.why, "take_received_plaintext"));
	/* Another crate's record_layer.rs is not rustls's. */
	CHECK(patch(img, len, "/rustls-0", "/rusty--0", 9) == 1);
	loc_image(img, len, &r);
	CHECK(r.status == LOC_NONE);
}

static void test_cache(void)
{
	char dir[] = "/tmp/locate_test.XXXXXX";
	struct loc_result a, b;
	struct loc_locator *l1, *l2;
	int fd = open(FAKE, O_RDONLY);

	CHECK(mkdtemp(dir) != NULL);
	l1 = loc_locator_new(dir);
	l2 = loc_locator_new(dir);
	CHECK(fd >= 0 && !loc_locator_file(l1, fd, &a) && !a.from_cache && a.status == LOC_FOUND);
	CHECK(!strncmp(a.key, "build-id:", 9));
	CHECK(!loc_locator_file(l1, fd, &b) && b.from_cache && b.write_off == a.write_off);
	CHECK(!loc_locator_file(l2, fd, &b) && b.from_cache && b.write_off == a.write_off &&
	      b.read_off == a.read_off && b.status == LOC_FOUND);
	loc_locator_free(l1);
	loc_locator_free(l2);
	close(fd);
}

int main(void)
{
	size_t len = 0;
	uint8_t *img = slurp(FAKE, &len);

	CHECK(img != NULL);
	test_decoder();
	if (img)
		test_found_and_broken(img, len);
	test_cache();
	free(img);
	img = slurp(FAKE_RUSTLS, &len);
	CHECK(img != NULL);
	if (img)
		test_rustls(img, len);
	free(img);
	return test_failures != 0;
}
