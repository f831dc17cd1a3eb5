// SPDX-License-Identifier: MIT
/*
 * boringssl.c - BoringSSL's SSL_write/SSL_read by their error calls (see
 * boringssl.h for the method). The signatures are data (sigs[]).
 */
#define _GNU_SOURCE
#include "userspace/locate/boringssl.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/locate/func_bounds.h"
#include "userspace/locate/x86_insn.h"

/* From BoringSSL's include/openssl/err.h and ssl.h: public, never renumbered. */
#define ERR_LIB_SSL 16
enum reason_bit {
	R_SHOULD_NOT_HAVE_BEEN_CALLED = 1,	/* ERR_R_SHOULD_NOT_HAVE_BEEN_CALLED, 66 */
	R_BAD_LENGTH = 2,			/* SSL_R_BAD_LENGTH, 111 */
	R_SSL_HANDSHAKE_FAILURE = 4,		/* SSL_R_SSL_HANDSHAKE_FAILURE, 215 */
	R_UNINITIALIZED = 8,			/* SSL_R_UNINITIALIZED, 226 */
};

static const struct {
	uint32_t code;
	unsigned int bit;
} reasons[] = {
	{ 66, R_SHOULD_NOT_HAVE_BEEN_CALLED },
	{ 111, R_BAD_LENGTH },
	{ 215, R_SSL_HANDSHAKE_FAILURE },
	{ 226, R_UNINITIALIZED },
};

enum { SIG_WRITE, SIG_READ_IMPL, SIG_READ, NSIGS };

/* A function's signature: reasons it raises, reasons it must not, a callee. */
static const struct sig {
	const char *name;
	unsigned int all, none;
	int calls;	/* enum index of a function it calls directly, -1: none required */
} sigs[NSIGS] = {
	[SIG_WRITE] = { "SSL_write", R_UNINITIALIZED | R_SSL_HANDSHAKE_FAILURE | R_BAD_LENGTH, 0, -1 },
	[SIG_READ_IMPL] = { "ssl_read_impl", R_UNINITIALIZED | R_SSL_HANDSHAKE_FAILURE,
			    R_BAD_LENGTH, -1 },
	[SIG_READ] = { "SSL_read", R_SHOULD_NOT_HAVE_BEEN_CALLED, R_BAD_LENGTH, SIG_READ_IMPL },
};

#define MAX_STRINGS 8
#define MAX_SITES 4096
#define SIM_INSNS 16	/* instructions decoded from a file load to its call */
/*
 * The file name, stored reversed: as a plain literal it would sit in this
 * program's own .rodata, and xperf-bpf would find "BoringSSL" in itself.
 */
static const char file_name_rev[] = "cc.bil_lss/lss";
#define FILE_NAME_LEN (sizeof(file_name_rev) - 1)

/* System V argument registers, in order. */
static const unsigned int abi_args[] = { 7, 6, 2, 1, 8, 9 };	/* rdi rsi rdx rcx r8 r9 */

struct site {
	uint64_t addr;		/* the instruction loading the file name */
	uint64_t target;	/* the call's target */
	unsigned int bits;	/* enum reason_bit of its reason, 0 if not one we use */
	struct loc_func_range fn;
};

struct scan {
	const struct loc_elf_view *v;
	struct loc_elf_span text, rodata;
	uint64_t strings[MAX_STRINGS];
	size_t nstrings;
	struct site *sites;
	size_t nsites;
	struct loc_func_bounds fb;
};

/* Addresses of NUL-terminated strings ending in ".../ssl/ssl_lib.cc". */
static void find_strings(struct scan *s)
{
	const uint8_t *base = s->rodata.data, *end = base + s->rodata.len, *p = base;
	size_t flen = FILE_NAME_LEN + 1;	/* with its NUL */
	char name[FILE_NAME_LEN + 1];

	for (size_t i = 0; i < FILE_NAME_LEN; i++)
		name[i] = file_name_rev[FILE_NAME_LEN - 1 - i];
	name[FILE_NAME_LEN] = '\0';
	while (s->nstrings < MAX_STRINGS && p < end) {
		const uint8_t *hit = memmem(p, end - p, name, flen), *start;

		if (!hit)
			break;
		p = hit + flen;
		if (hit > base && hit[-1] != '/' && hit[-1] != '\0')
			continue;
		for (start = hit; start > base && start[-1] != '\0'; start--)
			;
		s->strings[s->nstrings++] = s->rodata.addr + (start - base);
	}
}

static bool is_string(const struct scan *s, uint64_t a)
{
	for (size_t i = 0; i < s->nstrings; i++)
		if (s->strings[i] == a)
			return true;
	return false;
}

static int add_site(struct scan *s, uint64_t addr)
{
	if (s->nsites == MAX_SITES)
		return -1;
	s->sites[s->nsites++] = (struct site){ .addr = addr };
	return 0;
}

/* Every instruction loading a file name's address: lea [rip+d], mov r, imm32. */
static int find_loads(struct scan *s)
{
	const uint8_t *t = s->text.data;
	size_t n = s->text.len;

	for (size_t i = 1; i + 6 <= n; i++) {
		uint8_t b = t[i];
		int32_t d;

		if (b == 0x8d && (t[i - 1] & 0xfb) == 0x48 && (t[i + 1] & 0xc7) == 0x05) {
			memcpy(&d, t + i + 2, 4);
			if (is_string(s, s->text.addr + i + 6 + (int64_t)d) && add_site(s, s->text.addr + i - 1))
				return -1;
		} else if ((b & 0xf8) == 0xb8 || (b == 0xc7 && (t[i + 1] & 0xf8) == 0xc0)) {
			uint32_t imm;
			size_t at = b == 0xc7 ? i + 2 : i + 1;

			if (at + 4 > n)
				continue;
			memcpy(&imm, t + at, 4);
			if (!is_string(s, imm))
				continue;
			/*
			 * Decoded from the opcode: a byte 0x41 before it may be a
			 * REX.B or the end of the previous instruction (a jmp's
			 * rel8), and the file argument is never in r8-r15 (4th/5th).
			 */
			if (add_site(s, s->text.addr + i))
				return -1;
		}
	}
	return 0;
}

/*
 * Decode from a file-name load to the call it feeds, tracking immediates
 * put in registers; fill the site's target and reason. 0 if it is an
 * ERR_LIB_SSL error call, -1 if not recognized.
 */
static int simulate(const struct scan *s, struct site *st)
{
	int64_t val[16];
	bool known[16] = { false };
	uint64_t pc = st->addr;
	int file_reg = -1, jumps = 0;

	for (int k = 0; k < SIM_INSNS; k++) {
		uint64_t off = pc - s->text.addr;
		struct loc_x86_insn in;

		if (off >= s->text.len ||
		    !loc_x86_decode(s->text.data + off, s->text.len - off, &in))
			return -1;
		pc += in.len;
		if (in.map == LOC_X86_MAP_1 && in.opcode == 0xe8) {
			st->target = pc + in.rel;
			break;
		}
		if (in.map == LOC_X86_MAP_1 && (in.opcode == 0xe9 || in.opcode == 0xeb)) {
			if (++jumps > 2)
				return -1;
			pc += in.rel;
			continue;
		}
		if (in.map != LOC_X86_MAP_1)
			continue;
		if ((in.opcode & 0xf8) == 0xb8) {
			unsigned int r = (in.opcode & 7) | ((in.rex & 1) << 3);

			val[r] = in.imm & ((in.rex & 8) ? ~0ull : 0xffffffffull);
			known[r] = true;
		} else if (in.opcode == 0xc7 && (in.modrm >> 6) == 3) {
			val[loc_x86_rm(&in)] = (uint32_t)in.imm;
			known[loc_x86_rm(&in)] = true;
		} else if ((in.opcode == 0x31 || in.opcode == 0x33) && (in.modrm >> 6) == 3 &&
			   loc_x86_rm(&in) == loc_x86_reg(&in)) {
			val[loc_x86_rm(&in)] = 0;
			known[loc_x86_rm(&in)] = true;
		} else if (in.opcode == 0x8d && in.rip_rel) {
			val[loc_x86_reg(&in)] = (int64_t)(pc + in.disp);
			known[loc_x86_reg(&in)] = true;
		} else if (in.opcode == 0xff && ((in.modrm >> 3) & 7) == 2) {
			return -1;	/* an indirect call first */
		} else if (in.has_modrm) {
			known[loc_x86_reg(&in)] = false;
			if ((in.modrm >> 6) == 3)
				known[loc_x86_rm(&in)] = false;
		} else if ((in.opcode & 0xf0) == 0x50) {
			known[(in.opcode & 7) | ((in.rex & 1) << 3)] = false;
		} else if (in.opcode == 0xc3 || (in.opcode & 0xf0) == 0x70) {
			return -1;	/* returned or branched before a call */
		}
	}
	if (!st->target)
		return -1;
	for (int a = 1; a < 6; a++)
		if (known[abi_args[a]] && is_string(s, (uint64_t)val[abi_args[a]]))
			file_reg = a;
	if (file_reg < 2 || !known[abi_args[0]] || val[abi_args[0]] != ERR_LIB_SSL ||
	    !known[abi_args[file_reg - 1]])
		return -1;
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if ((uint64_t)val[abi_args[file_reg - 1]] == reasons[i].code)
			st->bits = reasons[i].bit;
	return 0;
}

/* Keep the sites that call the most common target (ERR_put_error). */
static void keep_common_target(struct scan *s)
{
	uint64_t best = 0;
	size_t best_n = 0, k = 0;

	for (size_t i = 0; i < s->nsites; i++) {
		size_t c = 0;

		for (size_t j = 0; j < s->nsites; j++)
			c += s->sites[j].target == s->sites[i].target;
		if (c > best_n) {
			best_n = c;
			best = s->sites[i].target;
		}
	}
	for (size_t i = 0; i < s->nsites; i++)
		if (s->sites[i].target == best)
			s->sites[k++] = s->sites[i];
	s->nsites = k;
}

/* The reason bits a function (by its start) raises. */
static unsigned int fn_bits(const struct scan *s, uint64_t start)
{
	unsigned int bits = 0;

	for (size_t i = 0; i < s->nsites; i++)
		if (s->sites[i].fn.start == start)
			bits |= s->sites[i].bits;
	return bits;
}

/*
 * Whether .text between offsets lo and hi holds a direct call (e8 rel32)
 * to target, or with jmp also a jump (e9 rel32).
 */
static bool calls(const struct scan *s, uint64_t lo, uint64_t hi, uint64_t target, bool jmp)
{
	for (uint64_t i = lo; i + 5 <= hi && i + 5 <= s->text.len; i++) {
		int32_t d;

		if (s->text.data[i] != 0xe8 && (!jmp || s->text.data[i] != 0xe9))
			continue;
		memcpy(&d, s->text.data + i + 1, 4);
		if (s->text.addr + i + 5 + (int64_t)d == target)
			return true;
	}
	return false;
}

/*
 * The functions matching sig (starts, deduplicated); callee: the possible
 * starts of the function sig must call. Returns the count (up to max).
 */
static size_t match(const struct scan *s, const struct sig *sig, const uint64_t *callee,
		    size_t ncallee, struct loc_func_range *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nsites && n < max; i++) {
		const struct loc_func_range *fn = &s->sites[i].fn;
		unsigned int bits;
		bool dup = false, called = !callee;

		for (size_t k = 0; k < n; k++)
			dup |= out[k].start == fn->start;
		bits = fn_bits(s, fn->start);
		if (dup || (bits & sig->all) != sig->all || (bits & sig->none))
			continue;
		for (size_t k = 0; k < ncallee && !called; k++)
			called = calls(s, fn->start - s->text.addr, fn->end - s->text.addr,
				       callee[k], false);
		if (called)
			out[n++] = *fn;
	}
	return n;
}

static int resolve(struct scan *s, struct loc_boringssl_found *out, char *why, size_t wl)
{
	struct loc_func_range found[NSIGS][4];
	size_t n[NSIGS];
	uint64_t impl[4];

	n[SIG_WRITE] = match(s, &sigs[SIG_WRITE], NULL, 0, found[SIG_WRITE], 4);
	n[SIG_READ_IMPL] = match(s, &sigs[SIG_READ_IMPL], NULL, 0, found[SIG_READ_IMPL], 4);
	for (size_t k = 0; k < n[SIG_READ_IMPL]; k++)
		impl[k] = found[SIG_READ_IMPL][k].start;
	n[SIG_READ] = match(s, &sigs[SIG_READ], impl, n[SIG_READ_IMPL], found[SIG_READ], 4);
	for (int k = 0; k < NSIGS; k++) {
		if (n[k] != 1) {
			snprintf(why, wl, "%s: %zu functions match its error calls, want 1", sigs[k].name,
			    n[k]);
			return -1;
		}
	}
	out->write = (struct loc_located_fn){ found[SIG_WRITE][0].start, 0 };
	out->read = (struct loc_located_fn){ found[SIG_READ][0].start, 0 };
	/* Anything in .text calling or jumping to them confirms a function start. */
	if (!calls(s, 0, s->text.len, out->write.addr, true) ||
	    !calls(s, 0, s->text.len, out->read.addr, true)) {
		snprintf(why, wl, "SSL_write or SSL_read is never called directly: not a function start");
		return -1;
	}
	if (loc_elf_view_file_offset(s->v, out->write.addr, &out->write.offset) ||
	    loc_elf_view_file_offset(s->v, out->read.addr, &out->read.offset)) {
		snprintf(why, wl, "SSL_write/SSL_read outside every loadable segment");
		return -1;
	}
	return 1;
}

static int analyze(struct scan *s, struct loc_boringssl_found *out, char *why, size_t wl)
{
	const char *err;
	size_t k = 0;

	if (find_loads(s)) {
		snprintf(why, wl, "more than %d loads of the ssl_lib.cc name", MAX_SITES);
		return -1;
	}
	for (size_t i = 0; i < s->nsites; i++)
		if (!simulate(s, &s->sites[i]))
			s->sites[k++] = s->sites[i];
	s->nsites = k;
	keep_common_target(s);
	if (!s->nsites) {
		snprintf(why, wl, "ssl_lib.cc is in .rodata but no error call passes it: not BoringSSL code");
		return 0;
	}
	err = loc_func_bounds_open(&s->fb, s->v);
	if (err) {
		snprintf(why, wl, "function bounds: %s", err);
		return -1;
	}
	k = 0;
	for (size_t i = 0; i < s->nsites; i++)
		if (loc_func_bounds_find(&s->fb, s->sites[i].addr, &s->sites[i].fn) >= 0)
			s->sites[k++] = s->sites[i];
	s->nsites = k;
	out->bounds = s->fb.source;
	out->sites = (unsigned int)s->nsites;
	return resolve(s, out, why, wl);
}

int loc_boringssl_locate(const struct loc_elf_view *v, struct loc_boringssl_found *out, char *why,
			 size_t wl)
{
	struct scan s = { .v = v };
	int r;

	memset(out, 0, sizeof(*out));
	if (loc_elf_view_section(v, ".rodata", &s.rodata) ||
	    loc_elf_view_section(v, ".text", &s.text) || !s.text.len) {
		snprintf(why, wl, "no .rodata or .text section");
		return 0;
	}
	find_strings(&s);
	if (!s.nstrings) {
		snprintf(why, wl, "no BoringSSL source names (ssl_lib.cc) in .rodata");
		return 0;
	}
	s.sites = calloc(MAX_SITES, sizeof(*s.sites));
	if (!s.sites) {
		snprintf(why, wl, "out of memory");
		return -1;
	}
	r = analyze(&s, out, why, wl);
	loc_func_bounds_close(&s.fb);
	free(s.sites);
	return r;
}
