/* SPDX-License-Identifier: MIT */
/*
 * elf_view.h - a read-only, bounds-checked view of an x86-64 ELF64 image
 * in memory: its sections by name, its loadable segments (virtual address
 * -> file offset, what a uprobe needs) and its GNU build-id. No libelf:
 * this is the first parser of outside data the locator runs, fuzzed on
 * truncated and hostile files (locate_fuzz.c); every failure says why.
 */
#ifndef XPERF_USERSPACE_LOCATE_ELF_VIEW_H
#define XPERF_USERSPACE_LOCATE_ELF_VIEW_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of a section (or a part of the image) and where it is loaded. */
struct loc_elf_span {
	const uint8_t *data;	/* NULL when absent */
	size_t len;
	uint64_t addr;		/* virtual address of data[0] */
};

struct loc_elf_view {
	const uint8_t *img;
	size_t len;
	uint64_t shoff, phoff;
	uint16_t shnum, phnum, shstrndx;
	uint8_t build_id[32];
	size_t build_id_len;	/* 0: none */
};

/*
 * Check the header (ELF64, little-endian, x86-64, tables inside the image)
 * and read the build-id. Returns NULL or a static one-line reason.
 */
const char *loc_elf_view_open(struct loc_elf_view *v, const void *img, size_t len);

/* Section `name` (e.g. ".text"); 0 and an empty span when absent or out of bounds. */
int loc_elf_view_section(const struct loc_elf_view *v, const char *name, struct loc_elf_span *out);

/*
 * File offset of virtual address addr, from the PT_LOAD segment holding it
 * (what perf/uprobes take); 0 with *off set, -1 when no segment maps it.
 */
int loc_elf_view_file_offset(const struct loc_elf_view *v, uint64_t addr, uint64_t *off);

#endif /* XPERF_USERSPACE_LOCATE_ELF_VIEW_H */
