/* SPDX-License-Identifier: MIT */
/*
 * x86_insn.h - the small x86-64 decoder the locator needs: the length of
 * any general-purpose, SSE, VEX or EVEX instruction, its opcode, ModRM,
 * immediate, RIP-relative displacement and branch target. It does not
 * name instructions; callers recognize the few they care about (mov of an
 * immediate, lea rip-relative, call/jmp). Reads at most `avail` bytes.
 */
#ifndef XPERF_USERSPACE_LOCATE_X86_INSN_H
#define XPERF_USERSPACE_LOCATE_X86_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum loc_x86_map {
	LOC_X86_MAP_1 = 0,		/* one-byte opcodes */
	LOC_X86_MAP_0F = 1,
	LOC_X86_MAP_0F38 = 2,
	LOC_X86_MAP_0F3A = 3,
};

struct loc_x86_insn {
	uint8_t len;		/* bytes, 1..15 */
	uint8_t map;		/* enum loc_x86_map */
	uint8_t opcode;
	uint8_t rex;		/* 0x40..0x4f, 0 if none (VEX/EVEX: 0) */
	bool opsize16;		/* 0x66 prefix */
	bool has_modrm;
	uint8_t modrm;
	bool rip_rel;		/* ModRM memory operand is [rip + disp] */
	int32_t disp;
	int64_t imm;		/* sign-extended (mov r64, imm64: as is) */
	int64_t rel;		/* call/jmp/jcc: target = address of next instruction + rel */
};

/* Decode the instruction at p; its length, or 0 if invalid or cut off. */
int loc_x86_decode(const uint8_t *p, size_t avail, struct loc_x86_insn *in);

/* ModRM fields with REX extensions: the reg operand and the r/m register (mod == 3). */
static inline unsigned int loc_x86_reg(const struct loc_x86_insn *in)
{
	return ((in->modrm >> 3) & 7) | ((in->rex & 4) << 1);
}

static inline unsigned int loc_x86_rm(const struct loc_x86_insn *in)
{
	return (in->modrm & 7) | ((in->rex & 1) << 3);
}

#endif /* XPERF_USERSPACE_LOCATE_X86_INSN_H */
