// SPDX-License-Identifier: MIT
/* daemon_rules.c - the daemon's discovery rules (daemon_rules.h). */
#include "userspace/daemon_rules.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RULES_FILE_MAX (1 << 20)

int xpd_rules_add(struct xpd_rules *r, const char *kind, const char *pattern)
{
	struct xpd_rule *rule;

	if (strcmp(kind, "exe") && strcmp(kind, "cmdline"))
		return -EINVAL;
	if (!*pattern || strlen(pattern) >= XPD_PATTERN_MAX)
		return -EINVAL;
	if (r->n >= XPD_RULES_MAX)
		return -ENOSPC;
	rule = &r->rule[r->n++];
	rule->kind = strcmp(kind, "exe") ? XPD_CMDLINE : XPD_EXE;
	snprintf(rule->pattern, sizeof(rule->pattern), "%s", pattern);
	return 0;
}

/* One line, comments and surrounding blanks gone: 0, or an error message in why. */
static const char *parse_line(struct xpd_rules *r, char *line)
{
	char *kind, *pattern, *end;

	line[strcspn(line, "#")] = '\0';
	kind = line + strspn(line, " \t");
	if (!*kind)
		return NULL;
	pattern = kind + strcspn(kind, " \t");
	if (*pattern)
		*pattern++ = '\0';
	pattern += strspn(pattern, " \t");
	end = pattern + strlen(pattern);
	while (end > pattern && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	if (strcmp(kind, "exe") && strcmp(kind, "cmdline"))
		return "unknown rule (expected: exe GLOB, cmdline GLOB)";
	if (!*pattern)
		return "missing pattern";
	if (strlen(pattern) >= XPD_PATTERN_MAX)
		return "pattern longer than 255 bytes";
	return xpd_rules_add(r, kind, pattern) ? "more than 256 rules" : NULL;
}

int xpd_rules_parse(struct xpd_rules *r, const char *name, const char *text,
		    char *err, size_t errlen)
{
	char *copy = strdup(text);
	unsigned int line = 0;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (char *p = copy, *nl; p && !ret; p = nl ? nl + 1 : NULL) {
		const char *why;

		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		line++;
		why = parse_line(r, p);
		if (why) {
			snprintf(err, errlen, "%s:%u: %s", name, line, why);
			ret = -EINVAL;
		}
	}
	free(copy);
	return ret;
}

int xpd_rules_load(struct xpd_rules *r, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text;
	size_t n;
	int ret;

	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	text = malloc(RULES_FILE_MAX + 1);
	n = text ? fread(text, 1, RULES_FILE_MAX + 1, f) : 0;
	fclose(f);
	if (!text)
		return -ENOMEM;
	if (n > RULES_FILE_MAX) {
		free(text);
		snprintf(err, errlen, "%s: larger than 1 MiB", path);
		return -EFBIG;
	}
	if (memchr(text, '\0', n)) {
		free(text);
		snprintf(err, errlen, "%s: not a text file (NUL byte)", path);
		return -EINVAL;
	}
	text[n] = '\0';
	ret = xpd_rules_parse(r, path, text, err, errlen);
	free(text);
	return ret;
}

static bool match_exe(const char *pattern, const char *exe)
{
	const char *base = strrchr(exe, '/');

	if (!strchr(pattern, '/'))
		exe = base ? base + 1 : exe;
	return fnmatch(pattern, exe, 0) == 0;
}

bool xpd_rules_match(const struct xpd_rules *r, const char *exe, const char *args,
		     size_t args_len)
{
	char line[1024];
	size_t n = args_len < sizeof(line) ? args_len : sizeof(line) - 1;

	memcpy(line, args, n);
	line[n] = '\0';
	while (n && line[n - 1] == '\0')
		n--;
	for (size_t i = 0; i < n; i++)
		if (line[i] == '\0')
			line[i] = ' ';
	for (unsigned int i = 0; i < r->n; i++) {
		const struct xpd_rule *rule = &r->rule[i];

		if (rule->kind == XPD_EXE ? match_exe(rule->pattern, exe)
					  : fnmatch(rule->pattern, line, 0) == 0)
			return true;
	}
	return false;
}

unsigned int xpd_rules_exact_names(const struct xpd_rules *r, const char **names,
				   unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < r->n && n < max; i++) {
		const char *p = r->rule[i].pattern;

		if (r->rule[i].kind == XPD_EXE && strlen(p) <= XPD_KERNEL_NAME_MAX &&
		    !p[strcspn(p, "/*?[\\")])
			names[n++] = p;
	}
	return n;
}
