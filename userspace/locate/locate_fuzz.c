// SPDX-License-Identifier: MIT
/*
 * locate_fuzz.c - the locator's analysis on arbitrary bytes: ELF view,
 * .eh_frame, the int3 layout, the x86-64 decoder and the BoringSSL, Go
 * and rustls analyses (Locations, relocations, the call graph) must end
 * with a result or a reason, never a crash. Seeds: small stripped ELFs
 * with BoringSSL's and rustls's shapes, and a truncation.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/locate/boringssl.h"
#include "userspace/locate/gopclntab.h"
#include "userspace/locate/rustls.h"
#include "userspace/locate/x86_insn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct loc_boringssl_found f;
	struct loc_go_found g;
	struct loc_rustls_found rf;
	struct loc_elf_view v;
	struct loc_x86_insn in;
	char why[192];
	uint8_t *copy = malloc(size ? size : 1);	/* exact size: ASan sees overreads */

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (!loc_elf_view_open(&v, copy, size) &&
	    ((loc_boringssl_locate(&v, &f, why, sizeof(why)) == 1 && !f.write.addr) ||
	     (loc_go_locate(&v, &g, why, sizeof(why)) == 1 && !g.write.nrets) ||
	     (loc_rustls_locate(&v, &rf, why, sizeof(why)) == 1 && rf.write.addr == rf.read.addr)))
		__builtin_trap();
	for (size_t i = 0; i < size && i < 256;) {
		int n = loc_x86_decode(copy + i, size - i, &in);

		if (n > 15 || (size_t)n > size - i)
			__builtin_trap();
		i += n ? (size_t)n : 1;
	}
	free(copy);
	return 0;
}
