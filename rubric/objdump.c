/* SPDX-License-Identifier: MIT */
/* objdump.c - see objdump.h. The executable is --binary, or --target's first word. */
#include "rubric/objdump.h"

#include <stdio.h>
#include <string.h>

#include "lib/atomic_file.h"
#include "rubric/cmdline.h"
#include "rubric/env.h"
#include "rubric/runner.h"

int rb_objdump(const struct rb_opts *o, struct rb_meas *m)
{
	struct rb_stage *st = &m->asm_stage;
	char exe[4096], dir[512], err[XP_RB_WHY];
	struct rb_cmd cmd;
	struct rb_run run;

	if (o->tier != XP_RB_ASM)
		return 0;
	if (rb_cmd_build(o->target, o->binary, 1, 0, &cmd, err, sizeof(err)) ||
	    (strchr(cmd.argv[0], '/') ? snprintf(exe, sizeof(exe), "%s", cmd.argv[0]) < 0
				      : rb_which(cmd.argv[0], exe, sizeof(exe)))) {
		snprintf(st->why, sizeof(st->why), "cannot find the target's executable");
		return -1;
	}
	if (!rb_on_path("objdump")) {
		snprintf(st->why, sizeof(st->why), "objdump not found on PATH");
		return 0;
	}
	const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	snprintf(dir, sizeof(dir), "%s/tier4", o->out_dir);
	snprintf(st->artifact, sizeof(st->artifact), "%s/objdump_%s.txt", dir, base);
	char *argv[] = { "objdump", "-d", "-S", "-C", "--no-show-raw-insn", exe, NULL };
	struct rb_run_io io = { NULL, st->artifact, NULL, 0, o->timeout_s, NULL };
	if (xp_mkdir_p(dir) || rb_run_once(argv, &io, &run, err, sizeof(err)) != XP_RUN_OK) {
		snprintf(st->why, sizeof(st->why), "objdump %s: %s", exe, err);
		return -1;
	}
	st->ran = 1;
	return 0;
}
