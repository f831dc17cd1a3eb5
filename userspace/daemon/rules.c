// SPDX-License-Identifier: MIT
/* rules.c - the daemon's discovery rules (rules.h). */
#include "userspace/daemon/rules.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RULES_FILE_MAX (1 << 20)

static const char *const kinds[] = {
	[XPD_EXE] = "exe", [XPD_CMDLINE] = "cmdline", [XPD_HOST] = "host", [XPD_PATH] = "path",
};

const char *xpd_rule_kind_name(enum xpd_rule_kind kind)
{
	return kind < XPD_RULE_KINDS ? kinds[kind] : "?";
}

static int kind_of(const char *kind)
{
	for (unsigned int k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strcmp(kind, kinds[k]))
			return k;
	return -1;
}

/* Why a host or path cannot be matched in the kernel, or NULL. */
static const char *net_name_error(enum xpd_rule_kind kind, const char *name)
{
	const char *ok = kind == XPD_HOST ? "abcdefghijklmnopqrstuvwxyz0123456789.-"
					  : "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					    "0123456789/-._~%!$&'()+,;=:@";
	/* `*.example.com`: the names below example.com (the kernel's LPM trie, bpf/sock.h) */
	const char *rest = kind == XPD_HOST && !strncmp(name, "*.", 2) ? name + 2 : name;

	if (strlen(name) > XPD_NET_NAME_MAX)
		return kind == XPD_HOST ? "host name longer than 63 bytes"
					: "path longer than 63 bytes";
	if (kind == XPD_PATH && name[0] != '/')
		return "path must start with '/'";
	if (rest != name && (!*rest || *rest == '.'))
		return "a wildcard host needs a name after '*.' (*.example.com)";
	if (kind == XPD_HOST && strchr(rest, '*'))
		return "a wildcard only as the whole first label (*.example.com)";
	if (rest[strspn(rest, ok)])
		return kind == XPD_HOST ? "not a host name (letters, digits, '.', '-'; '*.' first)"
					: "not a request path (no space, '?', '#' or wildcard)";
	return NULL;
}

static void lowercase(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s += 'a' - 'A';
}

const char *xpd_rules_add(struct xpd_rules *r, const char *kind, const char *pattern)
{
	int k = kind_of(kind);
	struct xpd_rule rule = { .kind = k };
	const char *why;

	if (k < 0)
		return "unknown rule (expected: exe GLOB, cmdline GLOB, host NAME, path /PATH)";
	if (!*pattern)
		return "missing pattern";
	if (strlen(pattern) >= XPD_PATTERN_MAX)
		return "pattern longer than 255 bytes";
	snprintf(rule.pattern, sizeof(rule.pattern), "%s", pattern);
	if (k == XPD_HOST)
		lowercase(rule.pattern);
	why = k == XPD_HOST || k == XPD_PATH ? net_name_error(k, rule.pattern) : NULL;
	if (why)
		return why;
	if (r->n >= XPD_RULES_MAX)
		return "more than 256 rules";
	r->rule[r->n++] = rule;
	return NULL;
}

/* One line, comments and surrounding blanks gone: NULL, or an error message. */
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
	return xpd_rules_add(r, kind, pattern);
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

int xpd_rules_match(const struct xpd_rules *r, const char *exe, const char *args,
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
		    : rule->kind == XPD_CMDLINE && fnmatch(rule->pattern, line, 0) == 0)
			return rule->kind;
	}
	return -1;
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

unsigned int xpd_rules_net_names(const struct xpd_rules *r, enum xpd_rule_kind kind,
				 const char **names, unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < r->n && n < max; i++)
		if (r->rule[i].kind == kind)
			names[n++] = r->rule[i].pattern;
	return n;
}
