/* SPDX-License-Identifier: MIT */
/*
 * write_fail_test.c - a session directory that cannot be written (read-only,
 * or for root, a file in its place) does not stop the agent: every turn still
 * ends (XP_EWRITE), each failure is counted in xperf_stats, exactly one line
 * goes to stderr, no temp file is left, and when the directory becomes
 * writable again turns are written.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sdk/testutil.h"
#include "sdk/xperf.h"

static int run_turn(void)
{
	int turn = xperf_start_turn();
	int s = xperf_enter(turn, "prompt_assembly", NULL);

	CHECK(xperf_leave(turn, s) == 0);
	return xperf_end_turn(turn);
}

/* Lines of text in the file. */
static int count_lines(const char *path, char *first, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		if (n++ == 0)
			snprintf(first, len, "%s", line);
	if (f)
		fclose(f);
	return n;
}

int main(void)
{
	char base[PATH_MAX], sdir[PATH_MAX], errlog[PATH_MAX + 16], first[1024] = "";
	struct xperf_stats st;
	int saved, fd;

	tu_tmpdir(base, sizeof(base), "readonly");
	snprintf(errlog, sizeof(errlog), "%s.stderr", base);
	CHECK(xperf_init(&(struct xperf_agent_info){ "ro", NULL },
			 &(struct xperf_options){ .trace_dir = base, .session_id = "s1" }) == 0);
	CHECK(xperf_session_dir(sdir, sizeof(sdir)) > 0);
	CHECK(mkdir(sdir, 0700) == 0);
	CHECK(chmod(sdir, 0500) == 0);
	if (access(sdir, W_OK) == 0) {
		/* root ignores mode bits: block the directory with a regular file instead */
		CHECK(rmdir(sdir) == 0);
		fd = open(sdir, O_CREAT | O_WRONLY, 0600);
		CHECK(fd >= 0);
		close(fd);
	}
	fflush(stderr);
	saved = dup(2);
	fd = open(errlog, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	dup2(fd, 2);
	close(fd);
	for (int i = 0; i < 3; i++)
		CHECK(run_turn() == XP_EWRITE);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	CHECK(count_lines(errlog, first, sizeof(first)) == 1);
	CHECK(strstr(first, "xperf: cannot write") && strstr(first, "turn_001.json"));
	fprintf(stderr, "reported once: %s", first);
	CHECK(xperf_stats(&st) == 0 && st.write_failures == 3 && st.turns_written == 0);
	CHECK(tu_count_entries(base, ".tmp") == 0);

	/* writable again: the next turn is written and valid */
	unlink(sdir);
	rmdir(sdir);
	CHECK(run_turn() == 0);
	CHECK(xperf_stats(&st) == 0 && st.write_failures == 3 && st.turns_written == 1);
	snprintf(errlog, sizeof(errlog), "%s/turn_004.json", sdir);
	cJSON_Delete(tu_load(errlog));
	CHECK(xperf_shutdown() == 0);
	return tu_done("write_fail_test");
}
