// SPDX-License-Identifier: MIT
/*
 * spawn_test.c - the gate holds: the child runs nothing before release;
 * an unknown command comes back as -ENOENT.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "lib/test_check.h"
#include "userspace/spawn.h"

/* xpc_resolve_command follows execvp: a path as given, else the first $PATH hit. */
static void test_resolve(void)
{
	char out[256];

	setenv("PATH", "/nonexistent:/bin:/usr/bin", 1);
	CHECK(xpc_resolve_command("sh", out, sizeof(out)) == 0 && !strcmp(out, "/bin/sh"));
	CHECK(xpc_resolve_command("./x/y", out, sizeof(out)) == 0 && !strcmp(out, "./x/y"));
	CHECK(xpc_resolve_command("no-such-command-xperf", out, sizeof(out)) == -ENOENT);
}

int main(void)
{
	char marker[256], cmd[300];
	const char *tmp = getenv("TEST_TMPDIR");
	struct xpc_spawn s;
	struct stat st;
	int status = -1;

	snprintf(marker, sizeof(marker), "%s/spawned", tmp ? tmp : "/tmp");
	unlink(marker);
	snprintf(cmd, sizeof(cmd), "touch %s", marker);
	char *argv[] = { "sh", "-c", cmd, NULL };

	CHECK(xpc_spawn_gated(argv, &s) == 0);
	usleep(200000);
	CHECK(stat(marker, &st) == -1 && errno == ENOENT);	/* still gated */
	CHECK(xpc_spawn_release(&s) == 0);
	CHECK(waitpid(s.pid, &status, 0) == s.pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
	CHECK(stat(marker, &st) == 0);

	char *bad[] = { "/nonexistent/xperf-no-such-command", NULL };

	CHECK(xpc_spawn_gated(bad, &s) == 0);
	CHECK(xpc_spawn_release(&s) == -ENOENT);

	CHECK(xpc_spawn_gated(argv, &s) == 0);
	xpc_spawn_abort(&s);	/* reaped, never ran */
	test_resolve();
	return test_failures != 0;
}
