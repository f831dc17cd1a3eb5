// SPDX-License-Identifier: MIT
/* rules_test.c - the daemon's rules: parsing, file:line errors, matching. */
#include <errno.h>
#include <string.h>

#include "lib/test_check.h"
#include "userspace/daemon/rules.h"

#define ARGS(x) x, sizeof(x)

static void test_parse(void)
{
	struct xpd_rules r = { 0 };
	char err[256] = "";

	CHECK(xpd_rules_parse(&r, "rules", "# agents\n\nexe claude\n  cmdline  *agent.py*  # py\n"
				"exe /opt/*/bin/codex\r\n", err, sizeof(err)) == 0);
	CHECK(r.n == 3);
	CHECK(r.rule[0].kind == XPD_EXE && !strcmp(r.rule[0].pattern, "claude"));
	CHECK(r.rule[1].kind == XPD_CMDLINE && !strcmp(r.rule[1].pattern, "*agent.py*"));
	CHECK(!strcmp(r.rule[2].pattern, "/opt/*/bin/codex"));
}

static void test_errors(void)
{
	struct xpd_rules r = { 0 };
	char err[256] = "", longp[400];

	CHECK(xpd_rules_parse(&r, "f.rules", "exe a\nbinary b\n", err, sizeof(err)) == -EINVAL);
	CHECK(!strcmp(err, "f.rules:2: unknown rule (expected: exe GLOB, cmdline GLOB, host NAME, "
			   "path /PATH)"));
	CHECK(xpd_rules_parse(&r, "f.rules", "\n\ncmdline   # nothing\n", err, sizeof(err)) ==
	      -EINVAL);
	CHECK(!strcmp(err, "f.rules:3: missing pattern"));
	memset(longp, 'x', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = '\0';
	memcpy(longp, "exe ", 4);
	CHECK(xpd_rules_parse(&r, "f", longp, err, sizeof(err)) == -EINVAL);
	CHECK(!strcmp(err, "f:1: pattern longer than 255 bytes"));
	CHECK(xpd_rules_load(&r, "/nonexistent/rules", err, sizeof(err)) == -ENOENT);
	CHECK(!strcmp(err, "/nonexistent/rules: No such file or directory"));
	CHECK(xpd_rules_add(&r, "exe", "") != NULL);
	CHECK(xpd_rules_add(&r, "binary", "x") != NULL);
}

/* host and path rules: what the kernel can match exactly, else file:line. */
static void test_net(void)
{
	struct xpd_rules r = { 0 };
	const char *names[4];
	char err[256] = "";

	CHECK(xpd_rules_parse(&r, "n", "host API.Anthropic.com\npath /v1/messages\nexe x\n", err,
			      sizeof(err)) == 0);
	CHECK(r.n == 3 && r.rule[0].kind == XPD_HOST && r.rule[1].kind == XPD_PATH);
	CHECK(xpd_rules_net_names(&r, XPD_HOST, names, 4) == 1 &&
	      !strcmp(names[0], "api.anthropic.com"));
	CHECK(xpd_rules_net_names(&r, XPD_PATH, names, 4) == 1 && !strcmp(names[0], "/v1/messages"));
	/* a host or path rule never matches an exec */
	CHECK(xpd_rules_match(&r, "/usr/bin/api.anthropic.com", ARGS("/v1/messages")) < 0);
	CHECK(xpd_rules_parse(&r, "n", "exe a\nhost api_x.com\n", err, sizeof(err)) == -EINVAL);
	CHECK(!strcmp(err, "n:2: not a host name (letters, digits, '.', '-'; '*.' first)"));
	CHECK(xpd_rules_parse(&r, "n", "path v1/messages\n", err, sizeof(err)) == -EINVAL);
	CHECK(!strcmp(err, "n:1: path must start with '/'"));
	CHECK(xpd_rules_parse(&r, "n", "path /v1/*\n", err, sizeof(err)) == -EINVAL);
	CHECK(!strcmp(err, "n:1: not a request path (no space, '?', '#' or wildcard)"));
	CHECK(xpd_rules_parse(&r, "n", "host a234567890123456789012345678901234567890123456789012345"
			      "678901234\n", err, sizeof(err)) == -EINVAL);
	CHECK(!strcmp(err, "n:1: host name longer than 63 bytes"));
	CHECK(xpd_rules_add(&r, "path", "x") != NULL);
	CHECK(xpd_rules_add(&r, "host", "a b") != NULL);
}

/* `*.SUFFIX` hosts: the whole first label only, lowercased, file:line otherwise. */
static void test_wildcard(void)
{
	static const struct {
		const char *line, *err;
	} bad[] = {
		{ "host api.*.azure.com", "w:1: a wildcard only as the whole first label (*.example.com)" },
		{ "host *api.azure.com", "w:1: a wildcard only as the whole first label (*.example.com)" },
		{ "host *.*.azure.com", "w:1: a wildcard only as the whole first label (*.example.com)" },
		{ "host azure.com.*", "w:1: a wildcard only as the whole first label (*.example.com)" },
		{ "host *", "w:1: a wildcard only as the whole first label (*.example.com)" },
		{ "host *.", "w:1: a wildcard host needs a name after '*.' (*.example.com)" },
		{ "host *..com", "w:1: a wildcard host needs a name after '*.' (*.example.com)" },
		{ "host *.a_b.com", "w:1: not a host name (letters, digits, '.', '-'; '*.' first)" },
	};
	struct xpd_rules r = { 0 };
	const char *names[4];
	char err[256] = "";

	CHECK(xpd_rules_parse(&r, "w", "host *.OpenAI.Azure.com  # regional endpoints\n", err,
			      sizeof(err)) == 0);
	CHECK(xpd_rules_net_names(&r, XPD_HOST, names, 4) == 1 &&
	      !strcmp(names[0], "*.openai.azure.com"));
	CHECK(xpd_rules_exact_names(&r, names, 4) == 0); /* never an exe name for the kernel */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(xpd_rules_parse(&r, "w", bad[i].line, err, sizeof(err)) == -EINVAL);
		CHECK(!strcmp(err, bad[i].err));
	}
	CHECK(xpd_rules_add(&r, "host", "*.example.com") == NULL);
	CHECK(xpd_rules_add(&r, "host", "a.*.example.com") != NULL);
	CHECK(xpd_rules_add(&r, "cmdline", "*.example.com") == NULL); /* a glob there: no rule */
}

static void test_match(void)
{
	struct xpd_rules r = { 0 };

	CHECK(xpd_rules_add(&r, "exe", "node") == NULL);
	CHECK(xpd_rules_add(&r, "exe", "/opt/*/codex") == NULL);
	CHECK(xpd_rules_add(&r, "cmdline", "python3 *agent.py*") == NULL);
	CHECK(xpd_rules_match(&r, "/usr/bin/node", ARGS("node\0x.js")) == XPD_EXE);
	CHECK(xpd_rules_match(&r, "/usr/bin/nodejs", ARGS("nodejs\0x.js")) < 0);
	CHECK(xpd_rules_match(&r, "/opt/v1/codex", ARGS("codex")) == XPD_EXE);
	CHECK(xpd_rules_match(&r, "/usr/bin/codex", ARGS("codex")) < 0);
	CHECK(xpd_rules_match(&r, "/usr/bin/python3", ARGS("python3\0/srv/agent.py\0--x")) ==
	      XPD_CMDLINE);
	CHECK(xpd_rules_match(&r, "/usr/bin/python3", ARGS("python3\0/srv/server.py")) < 0);
	CHECK(xpd_rules_match(&r, "/usr/bin/python3", "", 0) < 0);
	CHECK(!strcmp(xpd_rule_kind_name(XPD_CMDLINE), "cmdline"));
}

int main(void)
{
	test_parse();
	test_errors();
	test_net();
	test_wildcard();
	test_match();
	return test_failures != 0;
}
