/* SPDX-License-Identifier: MIT */
/*
 * fuzz_vgparse.c - libFuzzer target for the Valgrind output parsers. The
 * first byte picks the parser (0 cachegrind, 1 callgrind, 2 massif), the
 * rest is the file. Checks the parsers' own invariants on success.
 */
#include <stdint.h>
#include <stdlib.h>

#include "rubric/vgparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];

	if (size < 1)
		return 0;
	const char *buf = (const char *)data + 1;
	size_t len = size - 1;
	switch (data[0] % 3) {
	case 0: {
		struct rb_cg_profile p;
		if (rb_cg_parse("f", buf, len, &p, err, sizeof(err)) == 0) {
			if (p.nfn > XP_VG_MAX_FNS)
				abort();
			rb_cg_free(&p);
		}
		break;
	}
	case 1: {
		struct rb_cl_profile c;
		if (rb_cl_parse("f", buf, len, 10, &c, err, sizeof(err)) == 0 &&
		    c.mult_paths > c.total_calls)
			abort();
		break;
	}
	default: {
		struct rb_ms_profile m;
		if (rb_ms_parse("f", buf, len, &m, err, sizeof(err)) == 0 &&
		    m.local_maxima > m.nsnap / 2)
			abort();
		break;
	}
	}
	return 0;
}
