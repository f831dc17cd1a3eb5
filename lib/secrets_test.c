/* SPDX-License-Identifier: MIT */
/* secrets_test.c - what xp_redact finds, what it keeps, and that it is idempotent. */
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

int main(void)
{
	char buf[24] = "x-api-key: 0123456789";

	expect("ls -la /tmp", NULL);
	expect("task-sk-1", NULL); /* "sk-" inside a word is no key */
	expect("Authorization: Bearer abc.def", "Authorization: Bearer [REDACTED]");
	expect("--key sk-0123456789abcdefghijklmn --v", "--key [REDACTED] --v");
	expect("https://h/?api_key=xyz&q=1", "https://h/?api_key=[REDACTED]&q=1");
	expect("X-Api-Key:  k1,next", "X-Api-Key:[REDACTED],next");
	CHECK(xp_redact_inplace(buf, sizeof(buf)) == 1 && !strcmp(buf, "x-api-key:[REDACTED]"),
	      "in place: %s", buf);
	CHECK(xp_redact_inplace(buf, sizeof(buf)) == 0, "redacted twice: %s", buf);
	return test_failures != 0;
}
