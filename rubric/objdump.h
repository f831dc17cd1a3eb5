/* SPDX-License-Identifier: MIT */
/*
 * objdump.h - the asm tier's artifact: `objdump -d -S -C` of the target's
 * executable into <out-dir>/tier4/objdump_<name>.txt, for a reader to audit
 * hot loops. Never scored (as the original's PRIORITY 4 "ASM audit").
 */
#ifndef XPERF_RUBRIC_OBJDUMP_H
#define XPERF_RUBRIC_OBJDUMP_H

#include "rubric/rubric.h"

/* Write the disassembly when the tier is asm; 0, or -1 with m->asm_stage.why. */
int rb_objdump(const struct rb_opts *o, struct rb_meas *m);

#endif /* XPERF_RUBRIC_OBJDUMP_H */
