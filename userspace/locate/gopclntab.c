// SPDX-License-Identifier: MIT
/*
 * gopclntab.c - the Go function table (see gopclntab.h). Layout of Go
 * 1.18+ (src/runtime/symtab.go, pcHeader): magic, two pad bytes, minLC,
 * ptrSize, then nfunc, nfiles, textStart, funcnameOffset, cuOffset,
 * filetabOffset, pctabOffset, pclnOffset; at pclnOffset, nfunc+1 pairs
 * (entry offset from textStart, _func offset from pclnOffset), and each
 * _func starts with (entryOff uint32, nameOff int32 into funcnametab).
 */
#include "userspace/locate/gopclntab.h"

#include <stdio.h>
#include <string.h>

#include "userspace/locate/x86_insn.h"

#define MAGIC_118 0xfffffff0u
#define MAGIC_120 0xfffffff1u
#define HDR_LEN (8 + 8 * 8)

static const char *const names[2] = { "crypto/tls.(*Conn).Write", "crypto/tls.(*Conn).Read" };

struct table {
	const uint8_t *p;
	size_t len;
	uint64_t nfunc, text, funcname, pcln;
};

static int u32_at(const struct table *t, uint64_t off, uint32_t *v)
{
	if (off > t->len || t->len - off < 4)
		return -1;
	memcpy(v, t->p + off, 4);
	return 0;
}

/* The name of function i, NUL-terminated inside the table, or NULL. */
static const char *fn_name(const struct table *t, uint64_t i, uint32_t *entry)
{
	uint32_t funcoff, e, nameoff;
	uint64_t at;

	if (u32_at(t, t->pcln + 8 * i, entry) || u32_at(t, t->pcln + 8 * i + 4, &funcoff) ||
	    u32_at(t, t->pcln + funcoff, &e) || u32_at(t, t->pcln + funcoff + 4, &nameoff))
		return NULL;
	at = t->funcname + (int32_t)nameoff;
	if (at >= t->len || !memchr(t->p + at, '\0', t->len - at))
		return NULL;
	return (const char *)t->p + at;
}

/* Decode [addr, end) and keep the file offsets of its RETs. */
static int find_rets(const struct loc_elf_view *v, const struct loc_elf_span *text,
		     struct loc_go_fn *fn, uint64_t end)
{
	uint64_t pc = fn->addr;

	while (pc < end) {
		uint64_t off = pc - text->addr, foff;
		struct loc_x86_insn in;

		if (off >= text->len || !loc_x86_decode(text->data + off, text->len - off, &in))
			return -1;
		if (in.map == LOC_X86_MAP_1 && in.opcode == 0xc3) {
			if (fn->nrets == LOC_GO_MAX_RETS || loc_elf_view_file_offset(v, pc, &foff))
				return -1;
			fn->rets[fn->nrets++] = foff;
		}
		pc += in.len;
	}
	return fn->nrets ? 0 : -1;
}

static int open_table(const struct loc_elf_view *v, struct table *t, char *why, size_t wl)
{
	struct loc_elf_span s;
	uint32_t magic;
	uint64_t h[8];

	if (loc_elf_view_section(v, ".gopclntab", &s) || s.len < HDR_LEN) {
		snprintf(why, wl, "no .gopclntab: not a Go program");
		return 0;
	}
	memcpy(&magic, s.data, 4);
	if (magic != MAGIC_118 && magic != MAGIC_120) {
		snprintf(why, wl, "Go pclntab magic 0x%x: Go < 1.18 (stack ABI) is not supported", magic);
		return -1;
	}
	if (s.data[7] != 8) {
		snprintf(why, wl, "Go pclntab with %u-byte pointers", s.data[7]);
		return -1;
	}
	memcpy(h, s.data + 8, sizeof(h));
	*t = (struct table){ s.data, s.len, h[0], h[2], h[3], h[7] };
	if (t->pcln > t->len || (t->len - t->pcln) / 8 <= t->nfunc || t->funcname > t->len) {
		snprintf(why, wl, "Go pclntab offsets outside the section");
		return -1;
	}
	return 1;
}

int loc_go_locate(const struct loc_elf_view *v, struct loc_go_found *out, char *why, size_t wl)
{
	struct loc_go_fn *fns[2] = { &out->write, &out->read };
	uint64_t ends[2] = { 0, 0 };
	struct loc_elf_span text;
	struct table t;
	int r;

	memset(out, 0, sizeof(*out));
	r = open_table(v, &t, why, wl);
	if (r <= 0)
		return r;
	out->nfunc = (unsigned int)t.nfunc;
	for (uint64_t i = 0; i < t.nfunc; i++) {
		uint32_t entry, next;
		const char *name = fn_name(&t, i, &entry);

		for (int k = 0; name && k < 2; k++) {
			if (strcmp(name, names[k]) || u32_at(&t, t.pcln + 8 * (i + 1), &next))
				continue;
			fns[k]->addr = t.text + entry;
			ends[k] = t.text + next;
		}
	}
	if (!out->write.addr && !out->read.addr) {
		snprintf(why, wl, "a Go program without crypto/tls");
		return 0;
	}
	if (loc_elf_view_section(v, ".text", &text)) {
		snprintf(why, wl, "no .text section");
		return -1;
	}
	for (int k = 0; k < 2; k++) {
		if (!fns[k]->addr || ends[k] <= fns[k]->addr ||
		    loc_elf_view_file_offset(v, fns[k]->addr, &fns[k]->offset) ||
		    find_rets(v, &text, fns[k], ends[k])) {
			snprintf(why, wl, "%s: missing, or its RET instructions cannot be decoded", names[k]);
			return -1;
		}
	}
	return 1;
}
