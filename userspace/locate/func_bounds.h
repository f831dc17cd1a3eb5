/* SPDX-License-Identifier: MIT */
/*
 * func_bounds.h - where the functions of a stripped executable begin and
 * end. From .eh_frame when the file has one (every FDE is a function's
 * [start, end), stripping keeps it for unwinding); otherwise from the
 * linker's layout: LLD and GNU ld fill the gaps between functions in
 * executable sections with int3 (0xcc) up to the next 16-byte boundary,
 * so a boundary right after an int3 starts a function. The second is a
 * heuristic: what it finds is confirmed by the call graph and, at run
 * time, by the self-check (locate_check.h). .eh_frame may cover only part
 * of the code (Bun's has FDEs for its C++ only): addresses outside every
 * FDE fall back to the layout.
 */
#ifndef XPERF_USERSPACE_LOCATE_FUNC_BOUNDS_H
#define XPERF_USERSPACE_LOCATE_FUNC_BOUNDS_H

#include <stddef.h>
#include <stdint.h>

#include "userspace/locate/elf_view.h"

struct loc_func_range {
	uint64_t start, end;	/* virtual addresses, end exclusive */
};

struct loc_func_bounds {
	struct loc_func_range *fde;	/* sorted by start; NULL without .eh_frame */
	size_t n;
	struct loc_elf_span text;	/* for the int3 layout */
	const char *source;		/* how: "eh_frame, else int3 padding" or "int3 padding" */
};

/*
 * Read the FDEs of v's .eh_frame (if any) and keep .text. Returns NULL or a
 * static reason (malformed .eh_frame, out of memory, no .text).
 */
const char *loc_func_bounds_open(struct loc_func_bounds *fb, const struct loc_elf_view *v);

/*
 * The function holding addr: 0 (from an FDE) or 1 (from the int3 layout:
 * addresses no FDE covers) with *out, or -1 when none is known.
 */
int loc_func_bounds_find(const struct loc_func_bounds *fb, uint64_t addr,
			 struct loc_func_range *out);

void loc_func_bounds_close(struct loc_func_bounds *fb);

#endif /* XPERF_USERSPACE_LOCATE_FUNC_BOUNDS_H */
