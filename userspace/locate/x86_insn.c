// SPDX-License-Identifier: MIT
/*
 * x86_insn.c - x86-64 instruction lengths (x86_insn.h). The opcode maps
 * are data: for each one-byte and 0F opcode, whether a ModRM byte follows
 * and what immediate; the few irregular cases (F6/F7 test, moffs, imm64,
 * enter) are handled by name.
 */
#include "userspace/locate/x86_insn.h"

#include <string.h>

/* Operand kinds of an opcode: bits 0-2 the immediate, bit 3 ModRM, bit 4 invalid. */
enum {
	I0 = 0,		/* no immediate */
	I8 = 1,
	I16 = 2,
	IZ = 3,		/* 32 bits (16 with 0x66) */
	R8 = 4,		/* rel8 */
	RZ = 5,		/* rel32 */
	M = 8,		/* ModRM follows */
	BAD = 16,
};

/* One-byte map, 64-bit mode. Prefixes, REX, VEX/EVEX and 0F are handled before. */
static const uint8_t map1[256] = {
	/* 00 */ M, M, M, M, I8, IZ, BAD, BAD, M, M, M, M, I8, IZ, BAD, BAD,
	/* 10 */ M, M, M, M, I8, IZ, BAD, BAD, M, M, M, M, I8, IZ, BAD, BAD,
	/* 20 */ M, M, M, M, I8, IZ, BAD, BAD, M, M, M, M, I8, IZ, BAD, BAD,
	/* 30 */ M, M, M, M, I8, IZ, BAD, BAD, M, M, M, M, I8, IZ, BAD, BAD,
	/* 40 */ I0, I0, I0, I0, I0, I0, I0, I0, I0, I0, I0, I0, I0, I0, I0, I0,
	/* 50 */ I0, I0, I0, I0, I0, I0, I0, I0, I0, I0, I0, I0, I0, I0, I0, I0,
	/* 60 */ BAD, BAD, BAD, M, BAD, BAD, BAD, BAD, IZ, M | IZ, I8, M | I8, I0, I0, I0, I0,
	/* 70 */ R8, R8, R8, R8, R8, R8, R8, R8, R8, R8, R8, R8, R8, R8, R8, R8,
	/* 80 */ M | I8, M | IZ, BAD, M | I8, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 90 */ I0, I0, I0, I0, I0, I0, I0, I0, I0, I0, BAD, I0, I0, I0, I0, I0,
	/* A0 */ I0, I0, I0, I0, I0, I0, I0, I0, I8, IZ, I0, I0, I0, I0, I0, I0,
	/* B0 */ I8, I8, I8, I8, I8, I8, I8, I8, IZ, IZ, IZ, IZ, IZ, IZ, IZ, IZ,
	/* C0 */ M | I8, M | I8, I16, I0, BAD, BAD, M | I8, M | IZ, I0, I0, I16, I0, I0, I8, BAD, I0,
	/* D0 */ M, M, M, M, BAD, BAD, BAD, I0, M, M, M, M, M, M, M, M,
	/* E0 */ R8, R8, R8, R8, I8, I8, I8, I8, RZ, RZ, BAD, R8, I0, I0, I0, I0,
	/* F0 */ I0, I0, I0, I0, I0, I0, M, M, I0, I0, I0, I0, I0, I0, M, M,
};

/* Two-byte map (0F xx); 38 and 3A are three-byte escapes handled before. */
static const uint8_t map0f[256] = {
	/* 00 */ M, M, M, M, BAD, I0, I0, I0, I0, I0, BAD, I0, BAD, M, I0, M | I8,
	/* 10 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 20 */ M, M, M, M, BAD, BAD, BAD, BAD, M, M, M, M, M, M, M, M,
	/* 30 */ I0, I0, I0, I0, I0, I0, BAD, I0, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD,
	/* 40 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 50 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 60 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 70 */ M | I8, M | I8, M | I8, M | I8, M, M, M, I0, M, M, BAD, BAD, M, M, M, M,
	/* 80 */ RZ, RZ, RZ, RZ, RZ, RZ, RZ, RZ, RZ, RZ, RZ, RZ, RZ, RZ, RZ, RZ,
	/* 90 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* A0 */ I0, I0, I0, M, M | I8, M, BAD, BAD, I0, I0, I0, M, M | I8, M, M, M,
	/* B0 */ M, M, M, M, M, M, M, M, M, M, M | I8, M, M, M, M, M,
	/* C0 */ M, M, M | I8, M, M | I8, M | I8, M | I8, M, I0, I0, I0, I0, I0, I0, I0, I0,
	/* D0 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* E0 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* F0 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, BAD,
};

struct cursor {
	const uint8_t *p;
	size_t n, i;
};

static int take(struct cursor *c, size_t k, int64_t *val, bool sign)
{
	uint64_t v = 0;

	if (c->i + k > c->n || c->i + k > 15)
		return -1;
	for (size_t b = 0; b < k; b++)
		v |= (uint64_t)c->p[c->i + b] << (8 * b);
	c->i += k;
	if (sign && k < 8 && (v >> (8 * k - 1)) & 1)
		v |= ~0ull << (8 * k);
	*val = (int64_t)v;
	return 0;
}

/* ModRM, SIB and displacement. */
static int modrm(struct cursor *c, struct loc_x86_insn *in)
{
	int64_t d = 0;
	unsigned int mod, rm;

	if (c->i >= c->n)
		return -1;
	in->has_modrm = true;
	in->modrm = c->p[c->i++];
	mod = in->modrm >> 6;
	rm = in->modrm & 7;
	if (mod == 3)
		return 0;
	if (rm == 4) {
		if (c->i >= c->n)
			return -1;
		if (mod == 0 && (c->p[c->i] & 7) == 5)
			mod = 2;	/* SIB with no base: disp32 */
		c->i++;
	} else if (mod == 0 && rm == 5) {
		in->rip_rel = true;
		mod = 2;
	}
	if (mod == 1 && take(c, 1, &d, true))
		return -1;
	if (mod == 2 && take(c, 4, &d, true))
		return -1;
	in->disp = (int32_t)d;
	return 0;
}

/* The operands described by kind (enum above), after the opcode. */
static int operands(struct cursor *c, struct loc_x86_insn *in, unsigned int kind)
{
	unsigned int imm = kind & 7;
	int64_t v;

	if (kind & BAD)
		return -1;
	if ((kind & M) && modrm(c, in))
		return -1;
	if (imm == I0)
		return 0;
	if (imm == R8 || imm == RZ)
		return take(c, imm == R8 ? 1 : 4, &in->rel, true);
	if (take(c, imm == I8 ? 1 : imm == I16 || in->opsize16 ? 2 : 4, &v, true))
		return -1;
	in->imm = v;
	return 0;
}

/* The one-byte opcodes whose operands the table cannot say. */
static int irregular(struct cursor *c, struct loc_x86_insn *in, unsigned int *kind)
{
	uint8_t op = in->opcode;

	if ((op == 0xf6 || op == 0xf7) && c->i < c->n && ((c->p[c->i] >> 3) & 7) < 2)
		*kind = M | (op == 0xf6 ? I8 : IZ);	/* test r/m, imm */
	else if (op >= 0xa0 && op <= 0xa3)
		return take(c, 8, &in->imm, false) ? -1 : 1;	/* moffs64 */
	else if (op >= 0xb8 && op <= 0xbf && (in->rex & 8))
		return take(c, 8, &in->imm, false) ? -1 : 1;	/* mov r64, imm64 */
	else if (op == 0xc8) {
		int64_t v;

		return take(c, 3, &v, false) ? -1 : 1;		/* enter imm16, imm8 */
	}
	return 0;
}

/* VEX (C4/C5) and EVEX (62): map from the prefix, then opcode and ModRM. */
static int vex(struct cursor *c, struct loc_x86_insn *in, uint8_t lead)
{
	size_t payload = lead == 0xc5 ? 1 : lead == 0xc4 ? 2 : 3;
	unsigned int map = 1;

	if (c->i + payload + 1 > c->n)
		return -1;
	if (lead != 0xc5)
		map = c->p[c->i] & (lead == 0x62 ? 7 : 31);
	if (map < 1 || map > 3)
		return -1;
	c->i += payload;
	in->map = map;
	in->opcode = c->p[c->i++];
	if ((map != LOC_X86_MAP_0F || (map0f[in->opcode] & M)) && modrm(c, in))
		return -1;	/* vzeroupper/vzeroall (0F 77) have no ModRM */
	if (map == LOC_X86_MAP_0F3A || (map == LOC_X86_MAP_0F && (map0f[in->opcode] & 7) == I8))
		return operands(c, in, I8);
	return 0;
}

int loc_x86_decode(const uint8_t *p, size_t avail, struct loc_x86_insn *in)
{
	struct cursor c = { p, avail, 0 };
	unsigned int kind;
	int r;

	memset(in, 0, sizeof(*in));
	for (; c.i < c.n && c.i < 14; c.i++) {
		uint8_t b = p[c.i];

		if (b == 0x66)
			in->opsize16 = true;
		else if (b != 0xf0 && b != 0xf2 && b != 0xf3 && b != 0x2e && b != 0x36 &&
			 b != 0x3e && b != 0x26 && b != 0x64 && b != 0x65 && b != 0x67)
			break;
	}
	if (c.i < c.n && (p[c.i] & 0xf0) == 0x40)
		in->rex = p[c.i++];
	if (c.i >= c.n)
		return 0;
	in->opcode = p[c.i++];
	if (!in->rex && (in->opcode == 0xc4 || in->opcode == 0xc5 || in->opcode == 0x62)) {
		r = vex(&c, in, in->opcode);
	} else if (in->opcode != 0x0f) {
		kind = map1[in->opcode];
		r = irregular(&c, in, &kind);
		r = r ? r : operands(&c, in, kind);
	} else if (c.i < c.n && (p[c.i] == 0x38 || p[c.i] == 0x3a)) {
		in->map = p[c.i] == 0x38 ? LOC_X86_MAP_0F38 : LOC_X86_MAP_0F3A;
		c.i++;
		if (c.i >= c.n)
			return 0;
		in->opcode = p[c.i++];
		r = operands(&c, in, in->map == LOC_X86_MAP_0F38 ? M : M | I8);
	} else if (c.i < c.n) {
		in->map = LOC_X86_MAP_0F;
		in->opcode = p[c.i++];
		r = operands(&c, in, map0f[in->opcode]);
	} else {
		r = -1;
	}
	if (r < 0 || c.i > 15)
		return 0;
	in->len = (uint8_t)c.i;
	return in->len;
}
