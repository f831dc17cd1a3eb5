/* SPDX-License-Identifier: MIT */
/* cmdline.c - see cmdline.h: substitute {SIZE}, then split into words. */
#include "rubric/cmdline.h"

#include <stdio.h>
#include <string.h>

/* Replace every {SIZE} of t by the decimal size into out. */
static int substitute(const char *t, long size, int has_size, char *out, size_t cap)
{
	char num[32];
	size_t o = 0, nl = (size_t)snprintf(num, sizeof(num), "%ld", size);

	for (const char *p = t; *p; p++) {
		if (has_size && !strncmp(p, "{SIZE}", 6)) {
			if (o + nl >= cap)
				return -1;
			memcpy(out + o, num, nl);
			o += nl;
			p += 5;
			continue;
		}
		if (o + 1 >= cap)
			return -1;
		out[o++] = *p;
	}
	out[o] = '\0';
	return 0;
}

/* Split s into NUL-terminated words in cmd->buf (in place is not possible: quotes shrink). */
static int split(const char *s, struct xp_cmd *cmd, char *err, size_t errlen)
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

int xp_cmd_build(const char *target, const char *binary, long size, int has_size,
		 struct xp_cmd *cmd, char *err, size_t errlen)
{
	char line[XP_CMD_MAX_LEN / 2];

	if (binary) {
		if (snprintf(line, sizeof(line), "%s", binary) >= (int)sizeof(line))
			goto too_long;
		cmd->argc = 0;
		memcpy(cmd->buf, line, strlen(line) + 1);
		cmd->argv[cmd->argc++] = cmd->buf;
		if (has_size) {
			char *num = cmd->buf + strlen(line) + 1;
			snprintf(num, 32, "%ld", size);
			cmd->argv[cmd->argc++] = num;
		}
		cmd->argv[cmd->argc] = NULL;
		return 0;
	}
	if (substitute(target, size, has_size, line, sizeof(line)))
		goto too_long;
	return split(line, cmd, err, errlen);
too_long:
	snprintf(err, errlen, "command longer than %d bytes", XP_CMD_MAX_LEN / 2);
	return -1;
}
