/* SPDX-License-Identifier: MIT */
/*
 * gopclntab.h - crypto/tls.(*Conn).Write and (*Conn).Read of a Go
 * executable, stripped or not (`-ldflags='-s -w'` drops .symtab and DWARF
 * but the runtime needs .gopclntab: every function's name and entry are
 * there). Go >= 1.18 (pclntab magic 0xfffffff0/1): the register ABI puts
 * the receiver in rax and the buffer in rbx at entry, and n in rax at
 * return. Returns are hooked with uprobes on each RET instruction (found
 * by decoding the function from its entry to the next one's): a
 * uretprobe rewrites the return address on the goroutine's stack, which
 * Go may move or copy, and crashes the process.
 */
#ifndef XPERF_USERSPACE_LOCATE_GOPCLNTAB_H
#define XPERF_USERSPACE_LOCATE_GOPCLNTAB_H

#include <stddef.h>
#include <stdint.h>

#include "userspace/locate/elf_view.h"

#define LOC_GO_MAX_RETS 16

struct loc_go_fn {
	uint64_t addr, offset;			/* entry: virtual address, file offset */
	uint64_t rets[LOC_GO_MAX_RETS];		/* file offsets of its RET instructions */
	unsigned int nrets;
};

struct loc_go_found {
	struct loc_go_fn write, read;
	unsigned int nfunc;			/* functions in the table */
};

/*
 * 1 and *out when both methods were found, 0 when the file is not a Go
 * program with crypto/tls (why says which), -1 when it is one that cannot
 * be handled (an older pclntab, an undecodable body: why says).
 */
int loc_go_locate(const struct loc_elf_view *v, struct loc_go_found *out, char *why, size_t whylen);

#endif /* XPERF_USERSPACE_LOCATE_GOPCLNTAB_H */
