/* SPDX-License-Identifier: MIT */
/*
 * secrets_test.c - what the redactor finds (headers in any spelling and
 * spacing, env-style and query names, URL userinfo, markers, command-line
 * options), what it keeps, and that it is idempotent.
 */
#include "lib/secrets.h"

#include <stdlib.h>
#include <string.h>

#include "lib/test_check.h"

static void expect(const char *in, const char *want)
{
	char *got = xp_redact(in);

	CHECK(want ? got && !strcmp(got, want) : got == NULL, "%s -> %s", in, got ? got : "(none)");
	if (got)
		CHECK(xp_redact(got) == NULL, "not idempotent: %s", got);
	free(got);
}

/* argv (NULL-terminated) redacted argument by argument, joined by spaces. */
static void expect_argv(const char *const *argv, bool payloads, const char *want)
{
	char line[1024] = "";

	for (size_t i = 0; argv[i]; i++) {
		char *r = xp_redact_arg(i ? argv[i - 1] : NULL, argv[i], payloads);

		CHECK(r != NULL, "out of memory");
		strcat(strcat(line, i ? " " : ""), r ? r : "");
		free(r);
	}
	CHECK(!strcmp(line, want), "argv -> %s, want %s", line, want);
}

static void check_names(void)
{
	static const char *const yes[] = { "OPENAI_API_KEY", "x-goog-api-key", "access_token",
					   "Proxy-Authorization", "Cookie", "set-cookie",
					   "accessToken", "GITHUB_TOKEN", "password", "key" };
	static const char *const no[] = { "max_tokens", "keyboard", "model", "HOME", "monkey_x",
					  "Content-Type", "user-agent" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++)
		CHECK(xp_secret_name(yes[i], strlen(yes[i])), "%s is a secret's name", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(*no); i++)
		CHECK(!xp_secret_name(no[i], strlen(no[i])), "%s is no secret's name", no[i]);
}

static void check_text(void)
{
	expect("ls -la /tmp", NULL);
	expect("task-sk-1", NULL); /* "sk-" inside a word is no key */
	expect("max_tokens=100 model=x", NULL);
	expect("Authorization: Bearer abc.def", "Authorization: Bearer [REDACTED]");
	expect("authorization:LEAKME", "authorization:[REDACTED]");
	expect("Proxy-Authorization: LEAKME", "Proxy-Authorization: [REDACTED]");
	expect("AUTHORIZATION :  Basic dXNlcjpw", "AUTHORIZATION :  Basic [REDACTED]");
	expect("Cookie: a=LEAK; b=LEAK2", "Cookie: [REDACTED]");
	expect("--key sk-0123456789abcdefghijklmn --v", "--key [REDACTED] --v");
	expect("https://h/?api_key=xyz&q=1", "https://h/?api_key=[REDACTED]&q=1");
	expect("/v1/messages?key=LEAKME", "/v1/messages?key=[REDACTED]");
	expect("https://bob:LEAKME@h.example/x", "https://[REDACTED]@h.example/x");
	expect("OPENAI_API_KEY=LEAKME python3 a.py", "OPENAI_API_KEY=[REDACTED] python3 a.py");
	expect("X-Api-Key:  k1", "X-Api-Key:  [REDACTED]");
	expect("{\"api_key\": \"LEAK\", \"model\": \"m\"}",
	       "{\"api_key\": \"[REDACTED]\", \"model\": \"m\"}");
	expect("token='LEAK' x", "token='[REDACTED]' x");
}

static void check_argv(void)
{
	const char *curl[] = { "curl", "-H", "authorization:LEAKME", "-HX-Api-Key: LEAK",
			       "--header=Cookie: s=LEAK", "-u", "bob:LEAK", "--user=bob:LEAK",
			       "-d", "{\"prompt\":\"LEAK\"}", "--data-raw={x}",
			       "https://h/v1?token=LEAK", NULL };
	const char *env[] = { "env", "ANTHROPIC_API_KEY=LEAK", "tool", "--api-key", "LEAK",
			      "--max-tokens", "5", NULL };
	const char *login[] = { "-bash", "-c", "ls", NULL };

	expect_argv(curl, false,
		    "curl -H authorization:[REDACTED] -HX-Api-Key: [REDACTED] "
		    "--header=Cookie: [REDACTED] -u [REDACTED] --user=[REDACTED] -d [REDACTED] "
		    "--data-raw=[REDACTED] https://h/v1?token=[REDACTED]");
	expect_argv(curl, true,
		    "curl -H authorization:[REDACTED] -HX-Api-Key: [REDACTED] "
		    "--header=Cookie: [REDACTED] -u [REDACTED] --user=[REDACTED] "
		    "-d {\"prompt\":\"LEAK\"} --data-raw={x} https://h/v1?token=[REDACTED]");
	expect_argv(env, false, "env ANTHROPIC_API_KEY=[REDACTED] tool --api-key [REDACTED] "
				"--max-tokens 5");
	expect_argv(login, false, "-bash -c ls");
}

int main(void)
{
	check_names();
	check_text();
	check_argv();
	return test_failures != 0;
}
