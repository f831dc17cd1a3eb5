/* SPDX-License-Identifier: MIT */
/*
 * rules.h - which processes `xperf-bpf daemon` traces: glob patterns
 * on the executable and the command line, from a rules file and flags.
 *
 * File format (one rule a line; '#' starts a comment; blank lines ignored):
 *
 *     exe     GLOB     # the executable's path (GLOB with a '/'), else its basename
 *     cmdline GLOB     # the arguments joined by single spaces
 *     host    NAME     # a TLS connection to this server name (SNI): exact, or
 *                      # *.SUFFIX for every name below SUFFIX (not SUFFIX itself)
 *     path    /PATH    # a plaintext HTTP request to this path (query ignored), exact
 *
 * Globs are fnmatch(3) patterns (no FNM_PATHNAME: '*' crosses '/').
 * A process matches when any rule does: exe and cmdline at its exec (or
 * the start-up scan), host and path at the first send of a connection
 * (the kernel decides those: bpf/discover_net.bpf.h). Host names are
 * kept lowercase (a ClientHello's too); names and paths are at most 63
 * bytes; a wildcard host has its `*.` first and nowhere else.
 */
#ifndef XPERF_USERSPACE_DAEMON_RULES_H
#define XPERF_USERSPACE_DAEMON_RULES_H

#include <stdbool.h>
#include <stddef.h>

#define XPD_RULES_MAX 256
#define XPD_PATTERN_MAX 256
#define XPD_KERNEL_NAME_MAX 14	/* longest exact name matched in the kernel (comm is 15) */
#define XPD_NET_NAME_MAX 63	/* longest host or path (bpf/sock.h XP_DISCOVER_NAME) */

enum xpd_rule_kind { XPD_EXE, XPD_CMDLINE, XPD_HOST, XPD_PATH, XPD_RULE_KINDS };

struct xpd_rule {
	enum xpd_rule_kind kind;
	char pattern[XPD_PATTERN_MAX];
};

struct xpd_rules {
	struct xpd_rule rule[XPD_RULES_MAX];
	unsigned int n;
};

/* "exe", "cmdline", "host", "path" (a metrics label, the file's word). */
const char *xpd_rule_kind_name(enum xpd_rule_kind kind);

/*
 * Add one rule ("exe", "cmdline", "host" or "path"): NULL, or why not (bad kind,
 * empty, too long, not a host name or path, full), a rules file's message.
 */
const char *xpd_rules_add(struct xpd_rules *r, const char *kind, const char *pattern);

/*
 * Parse rules text (name: the file, for messages) and append to r. On error
 * returns a negative errno and writes "NAME:LINE: what" into err.
 */
int xpd_rules_parse(struct xpd_rules *r, const char *name, const char *text,
		    char *err, size_t errlen);

/* Read and parse a rules file; errors as xpd_rules_parse ("FILE: strerror" when unreadable). */
int xpd_rules_load(struct xpd_rules *r, const char *path, char *err, size_t errlen);

/*
 * Whether exe (a path) or args (argv, NUL-separated, args_len bytes) match a
 * rule: the kind of the first that does (XPD_EXE, XPD_CMDLINE), or -1.
 */
int xpd_rules_match(const struct xpd_rules *r, const char *exe, const char *args,
		    size_t args_len);

/*
 * The exe rules the kernel can apply at exec itself: a plain basename (no
 * '/', no wildcard) of at most 14 bytes. Fills names (pointers into r);
 * returns their count.
 */
unsigned int xpd_rules_exact_names(const struct xpd_rules *r, const char **names,
				   unsigned int max);

/* The names of the host (or path) rules, for the kernel: fills names, returns their count. */
unsigned int xpd_rules_net_names(const struct xpd_rules *r, enum xpd_rule_kind kind,
				 const char **names, unsigned int max);

#endif /* XPERF_USERSPACE_DAEMON_RULES_H */
