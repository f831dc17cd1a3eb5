// SPDX-License-Identifier: MIT
/*
 * elf_view.c - see elf_view.h. Every table and offset is checked against
 * the image's length before it is read; unaligned fields are read with
 * memcpy.
 */
#include "userspace/locate/elf_view.h"

#include <elf.h>
#include <string.h>

static int in_bounds(const struct loc_elf_view *v, uint64_t off, uint64_t len)
{
	return off <= v->len && len <= v->len - off;
}

static const Elf64_Shdr *shdr(const struct loc_elf_view *v, unsigned int i, Elf64_Shdr *tmp)
{
	if (i >= v->shnum)
		return NULL;
	memcpy(tmp, v->img + v->shoff + (uint64_t)i * sizeof(*tmp), sizeof(*tmp));
	return tmp;
}

/* The NT_GNU_BUILD_ID note of section .note.gnu.build-id, if any. */
static void read_build_id(struct loc_elf_view *v)
{
	struct loc_elf_span s;
	Elf64_Nhdr n;
	uint64_t desc;

	if (loc_elf_view_section(v, ".note.gnu.build-id", &s) || s.len < sizeof(n))
		return;
	memcpy(&n, s.data, sizeof(n));
	desc = sizeof(n) + (((uint64_t)n.n_namesz + 3) & ~3ull);
	if (n.n_type != NT_GNU_BUILD_ID || desc > s.len || n.n_descsz > s.len - desc ||
	    !n.n_descsz || n.n_descsz > sizeof(v->build_id))
		return;
	memcpy(v->build_id, s.data + desc, n.n_descsz);
	v->build_id_len = n.n_descsz;
}

const char *loc_elf_view_open(struct loc_elf_view *v, const void *img, size_t len)
{
	Elf64_Ehdr eh;

	memset(v, 0, sizeof(*v));
	v->img = img;
	v->len = len;
	if (len < sizeof(eh) || memcmp(img, ELFMAG, SELFMAG))
		return "not an ELF file";
	memcpy(&eh, img, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_machine != EM_X86_64)
		return "not an x86-64 ELF64 little-endian file";
	if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
	    !in_bounds(v, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr)) ||
	    eh.e_shstrndx >= eh.e_shnum)
		return "no section header table inside the file";
	if (eh.e_phnum && (eh.e_phentsize != sizeof(Elf64_Phdr) ||
			   !in_bounds(v, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr))))
		return "program header table outside the file";
	v->shoff = eh.e_shoff;
	v->shnum = eh.e_shnum;
	v->shstrndx = eh.e_shstrndx;
	v->phoff = eh.e_phoff;
	v->phnum = eh.e_phnum;
	read_build_id(v);
	return NULL;
}

int loc_elf_view_section(const struct loc_elf_view *v, const char *name, struct loc_elf_span *out)
{
	Elf64_Shdr strs, s;
	size_t nlen = strlen(name);

	memset(out, 0, sizeof(*out));
	if (!shdr(v, v->shstrndx, &strs) || !in_bounds(v, strs.sh_offset, strs.sh_size))
		return -1;
	for (unsigned int i = 1; i < v->shnum; i++) {
		shdr(v, i, &s);
		if (s.sh_name >= strs.sh_size || strs.sh_size - s.sh_name <= nlen ||
		    memcmp(v->img + strs.sh_offset + s.sh_name, name, nlen + 1))
			continue;
		if (s.sh_type == SHT_NOBITS || !in_bounds(v, s.sh_offset, s.sh_size))
			return -1;
		out->data = v->img + s.sh_offset;
		out->len = s.sh_size;
		out->addr = s.sh_addr;
		return 0;
	}
	return -1;
}

int loc_elf_view_file_offset(const struct loc_elf_view *v, uint64_t addr, uint64_t *off)
{
	for (unsigned int i = 0; i < v->phnum; i++) {
		Elf64_Phdr p;

		memcpy(&p, v->img + v->phoff + (uint64_t)i * sizeof(p), sizeof(p));
		if (p.p_type != PT_LOAD || addr < p.p_vaddr || addr - p.p_vaddr >= p.p_filesz)
			continue;
		*off = addr - p.p_vaddr + p.p_offset;
		return 0;
	}
	return -1;
}
