/* SPDX-License-Identifier: MIT */
/* cmdline.c - see cmdline.h: substitute the placeholders, then split into words. */
#include "rubric/cmdline.h"

#include <stdio.h>
#include <string.h>

/* Replace every placeholder of vars in t by its decimal value, into out. */
static int substitute(const char *t, const struct rb_cmd_var *vars, int nvars, char *out,
		      size_t cap)
{
	size_t o = 0;

	for (const char *p = t; *p;) {
		int v = 0;
		while (v < nvars && strncmp(p, vars[v].name, strlen(vars[v].name)))
			v++;
		if (v < nvars) {
			char num[32];
			size_t nl = (size_t)snprintf(num, sizeof(num), "%ld", vars[v].value);
			if (o + nl >= cap)
				return -1;
			memcpy(out + o, num, nl);
			o += nl;
			p += strlen(vars[v].name);
			continue;
		}
		if (o + 1 >= cap)
			return -1;
		out[o++] = *p++;
	}
	out[o] = '\0';
	return 0;
}

/* Split s into NUL-terminated words in cmd->buf (in place is not possible: quotes shrink). */
static int split(const char *s, struct rb_cmd *cmd, char *err, size_t errlen)
{
	size_t o = 0;
	char quote = 0;
	int in_word = 0;

	cmd->argc = 0;
	for (const char *p = s;; p++) {
		char c = *p;
		if (!quote && (c == ' ' || c == '\t' || c == '\n' || c == '\0')) {
			if (in_word) {
				cmd->buf[o++] = '\0';
				in_word = 0;
			}
			if (c == '\0')
				break;
			continue;
		}
		if (c == '\0') {
			snprintf(err, errlen, "unbalanced %c quote in the command", quote);
			return -1;
		}
		if (!in_word) {
			if (cmd->argc == XP_CMD_MAX_ARGS) {
				snprintf(err, errlen, "more than %d words in the command",
					 XP_CMD_MAX_ARGS);
				return -1;
			}
			cmd->argv[cmd->argc++] = cmd->buf + o;
			in_word = 1;
		}
		if (c == quote) {
			quote = 0;
			continue;
		}
		if (!quote && (c == '\'' || c == '"')) {
			quote = c;
			continue;
		}
		if (c == '\\' && quote != '\'' && p[1])
			c = *++p;
		cmd->buf[o++] = c;
	}
	cmd->argv[cmd->argc] = NULL;
	if (cmd->argc == 0) {
		snprintf(err, errlen, "empty command");
		return -1;
	}
	return 0;
}

static int too_long(char *err, size_t errlen)
{
	snprintf(err, errlen, "command longer than %d bytes", XP_CMD_MAX_LEN / 2);
	return -1;
}

int rb_cmd_expand(const char *tmpl, const struct rb_cmd_var *vars, int nvars,
		  struct rb_cmd *cmd, char *err, size_t errlen)
{
	char line[XP_CMD_MAX_LEN / 2];

	if (substitute(tmpl, vars, nvars, line, sizeof(line)))
		return too_long(err, errlen);
	return split(line, cmd, err, errlen);
}

int rb_cmd_build(const char *target, const char *binary, long size, int has_size,
		 struct rb_cmd *cmd, char *err, size_t errlen)
{
	const struct rb_cmd_var var = { "{SIZE}", size };
	size_t len = binary ? strlen(binary) : 0;

	if (!binary)
		return rb_cmd_expand(target, &var, has_size, cmd, err, errlen);
	if (len >= XP_CMD_MAX_LEN / 2)
		return too_long(err, errlen);
	cmd->argc = 0;
	memcpy(cmd->buf, binary, len + 1);
	cmd->argv[cmd->argc++] = cmd->buf;
	if (has_size) {
		char *num = cmd->buf + len + 1;
		snprintf(num, 32, "%ld", size);
		cmd->argv[cmd->argc++] = num;
	}
	cmd->argv[cmd->argc] = NULL;
	return 0;
}
