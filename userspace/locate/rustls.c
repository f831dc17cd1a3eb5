// SPDX-License-Identifier: MIT
/*
 * rustls.c - rustls's send_appdata_encrypt and take_received_plaintext by
 * a panic Location of its record layer and the call graph around it (see
 * rustls.h for the method). Sets are small: a handful of functions.
 */
#define _GNU_SOURCE
#include "userspace/locate/rustls.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/locate/func_bounds.h"
#include "userspace/locate/x86_insn.h"

#define MAX_ENDS 8		/* copies of the file name in .rodata */
#define MAX_LOCS 16		/* Locations naming it */
#define MAX_SET 64		/* functions in any set below */
#define MAX_CALLERS 32		/* a helper called from more places is not a signature */
#define MAX_CAND 512		/* candidates for the read function: helpers x callers */
#define R_X86_64_RELATIVE 8

static const char file_tail[] = "/src/record_layer.rs";
#define TAIL_LEN (sizeof(file_tail) - 1)

struct set {
	uint64_t a[MAX_SET];
	size_t n;
};

/* The callers of one function, found with others' in one pass over .text. */
struct callers_of {
	uint64_t target;
	struct set by;
	bool many;		/* more than MAX_CALLERS: a common helper, no signature */
	bool by_sender;		/* one of them calls send_msg (step 3) */
};

struct scan {
	const struct loc_elf_view *v;
	struct loc_elf_span text, rodata;
	uint64_t ends[MAX_ENDS];	/* end addresses of ".../rustls-*" + file_tail */
	size_t nends;
	uint64_t locs[MAX_LOCS];
	size_t nlocs;
	struct loc_func_bounds fb;
};

static bool set_has(const struct set *s, uint64_t a)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->a[i] == a)
			return true;
	return false;
}

/* Add a (once); -1 when the set is full. */
static int set_add(struct set *s, uint64_t a)
{
	if (set_has(s, a))
		return 0;
	if (s->n == MAX_SET)
		return -1;
	s->a[s->n++] = a;
	return 0;
}

/* Where file_tail ends a path whose directory is rustls's ("rustls-0.20.8/src/..."). */
static void find_ends(struct scan *s)
{
	const uint8_t *base = s->rodata.data, *end = base + s->rodata.len, *p = base;

	while (s->nends < MAX_ENDS && p < end) {
		const uint8_t *hit = memmem(p, end - p, file_tail, TAIL_LEN), *dir = hit;

		if (!hit)
			break;
		p = hit + TAIL_LEN;
		while (dir > base && dir[-1] != '/' && hit - dir < 64)
			dir--;
		if (hit - dir >= 6 && !memcmp(dir, "rustls", 6))
			s->ends[s->nends++] = s->rodata.addr + (p - base);
	}
}

/* 8 bytes at virtual address a inside span sp; -1 outside. */
static int span_u64(const struct loc_elf_span *sp, uint64_t a, uint64_t *out)
{
	if (!sp->data || a < sp->addr || a - sp->addr > sp->len || sp->len - (a - sp->addr) < 8)
		return -1;
	memcpy(out, sp->data + (a - sp->addr), 8);
	return 0;
}

/* A Location at address at with file pointer ptr (its len is the next word) naming ours. */
static void try_location(struct scan *s, const struct loc_elf_span *sp, uint64_t at, uint64_t ptr)
{
	uint64_t len;

	if (s->nlocs == MAX_LOCS || span_u64(sp, at + 8, &len) || len < TAIL_LEN || len > 4096 ||
	    ptr < s->rodata.addr || ptr - s->rodata.addr > s->rodata.len - len)
		return;
	for (size_t i = 0; i < s->nends; i++)
		if (ptr + len == s->ends[i] && !memchr(s->rodata.data + (ptr - s->rodata.addr), 0, len))
			s->locs[s->nlocs++] = at;
}

/*
 * Locations are {ptr, len, line, col}: in .data.rel.ro (PIE, the pointer
 * relocated) or .rodata (non-PIE). Linkers that leave a relocated field
 * 0 keep the pointer as the R_X86_64_RELATIVE addend in .rela.dyn.
 */
static void find_locations(struct scan *s)
{
	static const char *const homes[] = { ".data.rel.ro", ".rodata" };
	struct loc_elf_span rela, sp;

	for (size_t h = 0; h < sizeof(homes) / sizeof(homes[0]); h++) {
		if (loc_elf_view_section(s->v, homes[h], &sp))
			continue;
		for (size_t k = 0; k + 16 <= sp.len; k += 8) {
			uint64_t w;

			memcpy(&w, sp.data + k, 8);
			try_location(s, &sp, sp.addr + k, w);
		}
		if (loc_elf_view_section(s->v, ".rela.dyn", &rela))
			continue;
		for (size_t k = 0; k + 24 <= rela.len; k += 24) {
			uint64_t r[3];

			memcpy(r, rela.data + k, 24);
			if ((uint32_t)r[1] == R_X86_64_RELATIVE)
				try_location(s, &sp, r[0], r[2]);
		}
	}
}

/* The function starting exactly at a (an FDE start), else 0. */
static bool is_start(const struct scan *s, uint64_t a)
{
	struct loc_func_range fn;

	return loc_func_bounds_find(&s->fb, a, &fn) == 0 && fn.start == a;
}

/* Target of a call (e8) or jmp (e9) rel32 at text offset i, 0 if none. */
static uint64_t rel32_target(const struct scan *s, size_t i)
{
	int32_t d;

	if ((s->text.data[i] != 0xe8 && s->text.data[i] != 0xe9) || i + 5 > s->text.len)
		return 0;
	memcpy(&d, s->text.data + i + 1, 4);
	return s->text.addr + i + 5 + (int64_t)d;
}

static int by_target(const void *a, const void *b)
{
	const struct callers_of *x = a, *y = b;

	return x->target < y->target ? -1 : x->target > y->target;
}

/*
 * The callers (direct call or jmp rel32, from another function) of each
 * of the n targets, in one pass over .text: a handful of passes in all,
 * never a whole call graph (a 300 MB agent has millions of calls).
 */
static void find_callers(const struct scan *s, struct callers_of *c, size_t n)
{
	if (!n)
		return;
	qsort(c, n, sizeof(*c), by_target);
	for (size_t i = 0; i + 5 <= s->text.len; i++) {
		struct callers_of key = { .target = rel32_target(s, i) }, *hit;
		struct loc_func_range fn;

		if (key.target < c[0].target || key.target > c[n - 1].target)
			continue;
		hit = bsearch(&key, c, n, sizeof(*c), by_target);
		if (!hit || hit->many || loc_func_bounds_find(&s->fb, s->text.addr + i, &fn) ||
		    fn.start == hit->target)
			continue;
		if (set_add(&hit->by, fn.start) || hit->by.n > MAX_CALLERS)
			hit->many = true;
	}
}

/* Functions f calls or jumps to directly (not itself). */
static void callees(const struct scan *s, uint64_t f, struct set *out)
{
	struct loc_func_range fn;

	out->n = 0;
	if (loc_func_bounds_find(&s->fb, f, &fn) || fn.start < s->text.addr)
		return;
	for (uint64_t a = fn.start; a < fn.end && a + 5 <= s->text.addr + s->text.len; a++) {
		uint64_t t = rel32_target(s, a - s->text.addr);

		if (t && t != f && is_start(s, t))
			set_add(out, t);	/* a full set only loses helpers */
	}
}

static bool calls_any(const struct scan *s, uint64_t f, const struct set *targets)
{
	struct set c;

	callees(s, f, &c);
	for (size_t i = 0; i < c.n; i++)
		if (set_has(targets, c.a[i]))
			return true;
	return false;
}

/* Step 1: the functions that seal records (load a record_layer.rs Location). */
static int encrypt_sites(struct scan *s, struct set *enc)
{
	const uint8_t *t = s->text.data;
	struct loc_func_range fn;
	struct set sites = { .n = 0 };

	for (size_t i = 1; i + 6 <= s->text.len; i++) {
		uint64_t target;
		int32_t d;

		if (t[i] != 0x8d || (t[i - 1] & 0xfb) != 0x48 || (t[i + 1] & 0xc7) != 0x05)
			continue;
		memcpy(&d, t + i + 2, 4);
		target = s->text.addr + i + 6 + (int64_t)d;
		for (size_t k = 0; k < s->nlocs; k++)
			if (target == s->locs[k] &&
			    !loc_func_bounds_find(&s->fb, s->text.addr + i, &fn) &&
			    set_add(&sites, fn.start))
				return -1;
	}
	if (sites.n == 1) {	/* send_single_fragment not inlined: its callers */
		struct callers_of c = { .target = sites.a[0] };

		find_callers(s, &c, 1);
		sites = c.by;
	}
	*enc = sites;
	return 0;
}

/* Common direct callees of a and b. */
static void common_callees(const struct scan *s, uint64_t a, uint64_t b, struct set *out)
{
	struct set ca, cb;

	callees(s, a, &ca);
	callees(s, b, &cb);
	out->n = 0;
	for (size_t i = 0; i < ca.n; i++)
		if (set_has(&cb, ca.a[i]))
			set_add(out, ca.a[i]);
}

/* A candidate and the number of helpers that named it. */
struct vote {
	uint64_t fn;
	unsigned int n;
};

/* Count a vote for each function of cand. */
static void vote(struct vote *v, size_t *nv, const struct set *cand)
{
	for (size_t k = 0; k < cand->n; k++) {
		size_t j = 0;

		while (j < *nv && v[j].fn != cand->a[k])
			j++;
		if (j == *nv && *nv == MAX_CAND)
			continue;
		if (j == *nv)
			v[(*nv)++] = (struct vote){ cand->a[k], 0 };
		v[j].n++;
	}
}

/*
 * Step 3: take_received_plaintext among the callers of the sealing
 * functions' common helpers: not a sender nor one of the helpers,
 * calling no sender, called by a function that calls send_msg. Each helper votes for its candidates;
 * the function most helpers name wins, alone (rx holds the tie, if any).
 * A helper shared for other reasons (a sanitizer's report function)
 * names other functions but not most. Two passes over .text: the
 * helpers' callers, theirs.
 */
static int receiver(const struct scan *s, const struct set *helpers, const struct set *senders,
		    const struct set *send_msg, struct set *rx)
{
	struct callers_of *h = calloc(helpers->n + 1, sizeof(*h)), *f = calloc(MAX_CAND, sizeof(*f));
	struct vote *v = calloc(MAX_CAND, sizeof(*v));
	size_t nf = 0, nv = 0;
	unsigned int best = 0;

	rx->n = 0;
	if (!h || !f || !v) {
		free(h);
		free(f);
		free(v);
		return -1;
	}
	for (size_t i = 0; i < helpers->n; i++)
		h[i].target = helpers->a[i];
	find_callers(s, h, helpers->n);
	for (size_t i = 0; i < helpers->n; i++)
		for (size_t k = 0; !h[i].many && k < h[i].by.n && nf < MAX_CAND; k++) {
			uint64_t c = h[i].by.a[k];
			bool seen = false;

			for (size_t j = 0; j < nf && !seen; j++)
				seen = f[j].target == c;
			if (!seen && !set_has(senders, c) && !set_has(helpers, c) &&
			    !calls_any(s, c, senders))
				f[nf++].target = c;
		}
	find_callers(s, f, nf);
	for (size_t k = 0; k < nf; k++)
		for (size_t j = 0; !f[k].many && j < f[k].by.n && !f[k].by_sender; j++)
			f[k].by_sender = calls_any(s, f[k].by.a[j], send_msg);
	for (size_t i = 0; i < helpers->n; i++) {
		struct set cand = { .n = 0 };

		for (size_t k = 0; !h[i].many && k < h[i].by.n; k++) {
			struct callers_of key = { .target = h[i].by.a[k] };
			const struct callers_of *hit = bsearch(&key, f, nf, sizeof(*f), by_target);

			if (hit && !hit->many && hit->by_sender)
				set_add(&cand, key.target);
		}
		vote(v, &nv, &cand);
	}
	for (size_t k = 0; k < nv; k++)
		best = v[k].n > best ? v[k].n : best;
	for (size_t k = 0; k < nv; k++)
		if (v[k].n == best)
			set_add(rx, v[k].fn);
	free(h);
	free(f);
	free(v);
	return 0;
}

/*
 * Step 4: the offset in CommonState of the boxed encrypter, from
 * send_appdata_encrypt's own code: registers copied from its first
 * argument (rdi) hold the CommonState; a 64-bit load from one of them at
 * displacement d, then an indirect call through the loaded register (or
 * through a function pointer loaded from it: instrumented code), is a
 * vtable call on the Box<dyn> {data, vtable} at d - 8. Decoded linearly
 * from the entry (no path is followed): every such call must agree.
 * 0 when none is found (the caller keeps the address as the id).
 */
static uint32_t encrypter_offset(const struct scan *s, uint64_t f)
{
	unsigned int self = 1u << 7;	/* registers holding the CommonState: rdi */
	int64_t loaded[16];
	unsigned int from_self = 0;	/* registers loaded from [self + loaded[r]] */
	unsigned int fn_ptr = 0;	/* registers loaded from [from_self reg + k]: loaded[r] kept */
	int64_t found = -1;
	struct loc_func_range fn;

	if (loc_func_bounds_find(&s->fb, f, &fn))
		return 0;
	for (uint64_t a = fn.start; a < fn.end;) {
		uint64_t off = a - s->text.addr;
		struct loc_x86_insn in;
		unsigned int reg, rm;

		if (off >= s->text.len ||
		    !loc_x86_decode(s->text.data + off, s->text.len - off, &in))
			return 0;
		a += in.len;
		if (in.map != LOC_X86_MAP_1 || !in.has_modrm)
			continue;
		reg = loc_x86_reg(&in);
		rm = loc_x86_rm(&in);
		if ((in.opcode == 0x89 || in.opcode == 0x8b) && (in.rex & 8) && (in.modrm >> 6) == 3) {
			unsigned int src = in.opcode == 0x89 ? reg : rm, dst = in.opcode == 0x89 ? rm : reg;

			self = (self & ~(1u << dst)) | (((self >> src) & 1) << dst);
			from_self &= ~(1u << dst);
			fn_ptr &= ~(1u << dst);
		} else if (in.opcode == 0x8b && (in.rex & 8) && (in.modrm & 7) != 4 && !in.rip_rel) {
			bool vt = (from_self >> rm) & 1;
			int64_t d = vt ? loaded[rm] : in.disp;

			self &= ~(1u << reg);
			from_self &= ~(1u << reg);
			fn_ptr &= ~(1u << reg);
			if (vt || ((self >> rm) & 1)) {
				loaded[reg] = d;
				*(vt ? &fn_ptr : &from_self) |= 1u << reg;
			}
		} else if (in.opcode == 0xff && ((in.modrm >> 3) & 7) == 2 &&
			   ((in.modrm >> 6) == 3 ? (fn_ptr >> rm) & 1 :
			    (in.modrm & 7) != 4 && !in.rip_rel && ((from_self >> rm) & 1))) {
			if (found >= 0 && found != loaded[rm])
				return 0;
			found = loaded[rm];
		}
	}
	return found >= 8 ? (uint32_t)(found - 8) + 1 : 0;
}

static int fail(char *why, size_t wl, const char *msg, size_t n, size_t want)
{
	snprintf(why, wl, "%s: %zu found, want %zu", msg, n, want);
	return -1;
}

static int resolve(struct scan *s, struct loc_rustls_found *out, char *why, size_t wl)
{
	struct set enc = { .n = 0 }, common, send_msg = { .n = 0 }, helpers = { .n = 0 }, senders, rx;
	uint64_t appdata = 0, msg = 0;

	if (encrypt_sites(s, &enc) || enc.n != 2)
		return fail(why, wl, "functions sealing records (record_layer.rs panic site)", enc.n, 2);
	out->sites = (unsigned int)enc.n;
	common_callees(s, enc.a[0], enc.a[1], &common);
	for (size_t i = 0; i < common.n; i++)
		if (calls_any(s, common.a[i], &enc))
			set_add(&send_msg, common.a[i]);
	for (int k = 0; k < 2; k++) {
		struct set one = { .a = { enc.a[k] }, .n = 1 };
		bool called = false;

		for (size_t i = 0; i < send_msg.n && !called; i++)
			called = calls_any(s, send_msg.a[i], &one);
		*(called ? &msg : &appdata) = enc.a[k];
	}
	if (!send_msg.n || !msg || !appdata)
		return fail(why, wl, "send_msg calling back exactly one sealing function", send_msg.n, 1);
	senders = enc;
	for (size_t i = 0; i < send_msg.n; i++)
		set_add(&senders, send_msg.a[i]);
	for (size_t i = 0; i < common.n; i++)
		if (!set_has(&send_msg, common.a[i]))
			set_add(&helpers, common.a[i]);
	if (receiver(s, &helpers, &senders, &send_msg, &rx)) {
		snprintf(why, wl, "out of memory");
		return -1;
	}
	if (rx.n != 1)
		return fail(why, wl, "take_received_plaintext candidates", rx.n, 1);
	out->conn_off = encrypter_offset(s, appdata);
	out->write = (struct loc_located_fn){ appdata, 0 };
	out->read = (struct loc_located_fn){ rx.a[0], 0 };
	if (loc_elf_view_file_offset(s->v, appdata, &out->write.offset) ||
	    loc_elf_view_file_offset(s->v, rx.a[0], &out->read.offset)) {
		snprintf(why, wl, "functions outside every loadable segment");
		return -1;
	}
	return 1;
}

int loc_rustls_locate(const struct loc_elf_view *v, struct loc_rustls_found *out, char *why,
		      size_t wl)
{
	struct scan s = { .v = v };
	const char *err;
	int r;

	memset(out, 0, sizeof(*out));
	if (loc_elf_view_section(v, ".rodata", &s.rodata) ||
	    loc_elf_view_section(v, ".text", &s.text) || !s.text.len || !s.rodata.len) {
		snprintf(why, wl, "no .rodata or .text section");
		return 0;
	}
	find_ends(&s);
	if (s.nends)
		find_locations(&s);
	if (!s.nlocs) {
		snprintf(why, wl, "no panic Location naming rustls's record_layer.rs");
		return 0;
	}
	err = loc_func_bounds_open(&s.fb, v);
	if (err || !s.fb.n) {
		snprintf(why, wl, "function bounds: %s", err ? err : "no .eh_frame");
		loc_func_bounds_close(&s.fb);
		return -1;
	}
	r = resolve(&s, out, why, wl);
	loc_func_bounds_close(&s.fb);
	return r;
}
