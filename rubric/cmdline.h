/* SPDX-License-Identifier: MIT */
/*
 * cmdline.h - turn `--target "CMD {SIZE}"` or `--binary PATH` into an argv
 * for one input size, and `--attach "CMD {PID}"` into one for a run. A
 * template is split like a POSIX shell word list (as the original's
 * shlex.split): blanks separate words, '...' and "..." quote, backslash
 * escapes; no expansion of any kind.
 */
#ifndef XPERF_RUBRIC_CMDLINE_H
#define XPERF_RUBRIC_CMDLINE_H

#include <stddef.h>

#define XP_CMD_MAX_ARGS 64
#define XP_CMD_MAX_LEN 4096

struct rb_cmd {
	char buf[XP_CMD_MAX_LEN];	 /* the words, NUL-separated */
	char *argv[XP_CMD_MAX_ARGS + 1]; /* NULL-terminated */
	int argc;
};

/* A placeholder ("{SIZE}", "{PID}") and the number it stands for. */
struct rb_cmd_var {
	const char *name;
	long value;
};

/*
 * Split tmpl with every placeholder of vars[0..nvars) replaced by its decimal
 * value. Returns 0, or -1 with a one-line reason in err.
 */
int rb_cmd_expand(const char *tmpl, const struct rb_cmd_var *vars, int nvars,
		  struct rb_cmd *cmd, char *err, size_t errlen);

/*
 * Build the argv of a run: `target` with every {SIZE} replaced by `size`
 * (when has_size), or `binary` with `size` appended as argv[1]. Returns 0,
 * or -1 with a one-line reason in err (unbalanced quote, too long, empty).
 */
int rb_cmd_build(const char *target, const char *binary, long size, int has_size,
		 struct rb_cmd *cmd, char *err, size_t errlen);

#endif /* XPERF_RUBRIC_CMDLINE_H */
