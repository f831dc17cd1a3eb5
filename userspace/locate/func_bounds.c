// SPDX-License-Identifier: MIT
/*
 * func_bounds.c - .eh_frame FDEs (CIE augmentation "zR..." gives the
 * pointer encoding; pcrel/absolute, 2/4/8-byte and LEB128 forms) and the
 * int3 layout fallback. See func_bounds.h.
 */
#include "userspace/locate/func_bounds.h"

#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

#define PE_FORMAT 0x0f
#define PE_PCREL 0x10
#define ALIGN 16	/* function alignment of the int3 layout */
#define MAX_FUNC (1u << 20)	/* int3 layout: no function of ours is longer */

struct rd {
	const uint8_t *p, *end;
	uint64_t addr;	/* virtual address of p */
};

static int rd_bytes(struct rd *r, void *out, size_t k)
{
	if ((size_t)(r->end - r->p) < k)
		return -1;
	memcpy(out, r->p, k);
	r->p += k;
	r->addr += k;
	return 0;
}

static int rd_leb(struct rd *r, uint64_t *v, int sign)
{
	unsigned int shift = 0;
	uint8_t b;

	*v = 0;
	do {
		if (r->p >= r->end || shift > 63)
			return -1;
		b = *r->p++;
		r->addr++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (sign && shift < 64 && (b & 0x40))
		*v |= ~0ull << shift;
	return 0;
}

/* A pointer in encoding enc; pcrel is relative to the field's own address. */
static int rd_ptr(struct rd *r, uint8_t enc, uint64_t *v)
{
	uint64_t at = r->addr;
	int16_t s2;
	int32_t s4;
	uint16_t u2;
	uint32_t u4;
	int err;

	switch (enc & PE_FORMAT) {
	case 0x00: case 0x04: case 0x0c: err = rd_bytes(r, v, 8); break;
	case 0x01: err = rd_leb(r, v, 0); break;
	case 0x09: err = rd_leb(r, v, 1); break;
	case 0x02: err = rd_bytes(r, &u2, 2); *v = u2; break;
	case 0x0a: err = rd_bytes(r, &s2, 2); *v = (uint64_t)(int64_t)s2; break;
	case 0x03: err = rd_bytes(r, &u4, 4); *v = u4; break;
	case 0x0b: err = rd_bytes(r, &s4, 4); *v = (uint64_t)(int64_t)s4; break;
	default: return -1;
	}
	if (!err && (enc & 0x70) == PE_PCREL)
		*v += at;
	else if (!err && (enc & 0x70))
		return -1;	/* datarel/textrel/funcrel: not in executables we read */
	return err;
}

/* The FDE pointer encoding of a CIE; r holds its bytes after the CIE id. */
static int cie_encoding(struct rd r, uint8_t *enc)
{
	const char *aug;
	uint64_t skip;
	size_t alen;
	uint8_t ver, b;

	*enc = 0;
	if (rd_bytes(&r, &ver, 1) || (ver != 1 && ver != 3))
		return -1;
	aug = (const char *)r.p;
	alen = strnlen(aug, r.end - r.p);
	if (alen == (size_t)(r.end - r.p))
		return -1;
	r.p += alen + 1;
	r.addr += alen + 1;
	if (rd_leb(&r, &skip, 0) || rd_leb(&r, &skip, 1))	/* code, data alignment */
		return -1;
	if (ver == 1 ? rd_bytes(&r, &b, 1) : rd_leb(&r, &skip, 0))	/* return register */
		return -1;
	if (aug[0] != 'z')
		return 0;
	if (rd_leb(&r, &skip, 0))
		return -1;
	for (size_t i = 1; i < alen; i++) {
		uint64_t ignored;

		if (aug[i] == 'R')
			return rd_bytes(&r, enc, 1);
		if (aug[i] == 'L' && rd_bytes(&r, &b, 1))
			return -1;
		if (aug[i] == 'P' && (rd_bytes(&r, &b, 1) || rd_ptr(&r, b, &ignored)))
			return -1;
		if (aug[i] != 'L' && aug[i] != 'P' && aug[i] != 'S' && aug[i] != 'B')
			return -1;
	}
	return 0;
}

/* The encoding of the CIE an FDE points to: id is the FDE's CIE pointer at body. */
static int fde_encoding(const struct loc_elf_span *eh, const uint8_t *body, uint32_t id,
			uint8_t *enc)
{
	const uint8_t *cie;
	uint32_t clen;
	struct rd c;

	if (id > (uint64_t)(body - eh->data))
		return -1;
	cie = body - id;
	if (eh->data + eh->len - cie < 8)
		return -1;
	memcpy(&clen, cie, 4);
	if (clen < 5 || clen > (uint64_t)(eh->data + eh->len - cie - 4))
		return -1;
	c = (struct rd){ cie + 8, cie + 4 + clen, eh->addr + (uint64_t)(cie + 8 - eh->data) };
	return cie_encoding(c, enc);
}

static int add(struct loc_func_bounds *fb, size_t *cap, uint64_t start, uint64_t len)
{
	if (!len || start + len < start)
		return 0;
	if (xp_grow((void **)&fb->fde, cap, fb->n + 1, sizeof(*fb->fde)))
		return -1;
	fb->fde[fb->n++] = (struct loc_func_range){ start, start + len };
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct loc_func_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Walk the CIE/FDE records; a CIE is looked up by the FDE's back pointer. */
static const char *read_eh_frame(struct loc_func_bounds *fb, const struct loc_elf_span *eh)
{
	struct rd r = { eh->data, eh->data + eh->len, eh->addr };
	size_t cap = 0;

	while (r.end - r.p >= 4) {
		uint32_t len32, id;
		const uint8_t *body;
		struct rd rec;
		uint64_t start, range;
		uint8_t enc;

		rd_bytes(&r, &len32, 4);
		if (len32 == 0)
			break;	/* terminator */
		if (len32 == 0xffffffff || len32 > (size_t)(r.end - r.p) || len32 < 4)
			return "malformed .eh_frame record length";
		body = r.p;
		rec = (struct rd){ r.p, r.p + len32, r.addr };
		r.p += len32;
		r.addr += len32;
		rd_bytes(&rec, &id, 4);
		if (id == 0)
			continue;	/* a CIE */
		if (fde_encoding(eh, body, id, &enc))
			return "malformed or unsupported .eh_frame CIE";
		if (rd_ptr(&rec, enc, &start) || rd_ptr(&rec, enc & PE_FORMAT, &range))
			return "malformed .eh_frame FDE";
		if (add(fb, &cap, start, range))
			return "out of memory";
	}
	if (fb->n)
		qsort(fb->fde, fb->n, sizeof(*fb->fde), cmp_range);
	return NULL;
}

const char *loc_func_bounds_open(struct loc_func_bounds *fb, const struct loc_elf_view *v)
{
	struct loc_elf_span eh;
	const char *why;

	memset(fb, 0, sizeof(*fb));
	if (loc_elf_view_section(v, ".text", &fb->text) || !fb->text.len)
		return "no .text section";
	fb->source = "int3 padding";
	if (loc_elf_view_section(v, ".eh_frame", &eh) || !eh.len)
		return NULL;
	why = read_eh_frame(fb, &eh);
	if (why) {
		loc_func_bounds_close(fb);
		return why;
	}
	fb->source = fb->n ? "eh_frame, else int3 padding" : "int3 padding";
	return NULL;
}

/* A function starts at a 16-byte boundary right after an int3. */
static int padded_start(const struct loc_elf_span *t, uint64_t off)
{
	return off % ALIGN == 0 && off > 0 && t->data[off - 1] == 0xcc;
}

static int find_layout(const struct loc_func_bounds *fb, uint64_t addr, struct loc_func_range *out)
{
	const struct loc_elf_span *t = &fb->text;
	uint64_t off = addr - t->addr, s, e;

	for (s = off & ~(uint64_t)(ALIGN - 1); s > 0 && !padded_start(t, s); s -= ALIGN)
		if (off - s > MAX_FUNC)
			return -1;
	for (e = (off | (ALIGN - 1)) + 1; e < t->len && !padded_start(t, e); e += ALIGN)
		if (e - off > MAX_FUNC)
			return -1;
	/* The function's own bytes end at the int3 run before the next start. */
	while (e > off + 1 && e <= t->len && t->data[e - 1] == 0xcc)
		e--;
	*out = (struct loc_func_range){t->addr + s, t->addr + (e < t->len ? e : t->len)};
	return 0;
}

int loc_func_bounds_find(const struct loc_func_bounds *fb, uint64_t addr,
			 struct loc_func_range *out)
{
	size_t lo = 0, hi = fb->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fb->fde[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && addr < fb->fde[lo - 1].end) {
		*out = fb->fde[lo - 1];
		return 0;
	}
	/* No FDE holds it (.eh_frame often covers only the C++ parts). */
	if (addr < fb->text.addr || addr - fb->text.addr >= fb->text.len)
		return -1;
	return find_layout(fb, addr, out) ? -1 : 1;
}

void loc_func_bounds_close(struct loc_func_bounds *fb)
{
	free(fb->fde);
	fb->fde = NULL;
	fb->n = 0;
}
