/* SPDX-License-Identifier: MIT */
/*
 * cmd_demo.c - `xperf demo`: the first thing a user runs. Starts the mock
 * LLM provider (TLS on loopback, a certificate made at start), runs the
 * sample agent under `xperf-bpf record` (six turns: a 429 and its retry, a
 * failing tool, a streaming stall, a repeated command, a max_tokens cut),
 * then prints `xperf analyze session` as text and writes the HTML report.
 * No network is used; every process it started is stopped on any exit.
 *
 * Files are found (demo/README.md) through $XPERF_BPF and $XPERF_DEMO_DIR,
 * else in the Bazel runfiles of this executable, else next to it in
 * bazel-bin. $XPERF_PYTHON picks the interpreter (default /usr/bin/python3,
 * which uses the system libssl: the plaintext tier).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "cli/run_report.h"
#include "cli/commands.h"
#include "lib/args.h"
#include "lib/atomic_file.h"

#define PORT_WAIT_MS 20000

struct demo {
	char bpf[PATH_MAX], scripts[PATH_MAX], python[PATH_MAX];
	char out[PATH_MAX], tmp[PATH_MAX], session[64];
	pid_t mock, record;
	int port;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* First readable candidate among $env, runfiles and bazel-bin siblings. */
static int locate(char *out, size_t cap, const char *env, const char *rel)
{
	const char *v = getenv(env), *rf = getenv("RUNFILES_DIR");
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (v && *v) {
		snprintf(out, cap, "%s", v);
		return access(out, R_OK) ? -1 : 0;
	}
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	snprintf(out, cap, "%s.runfiles/xperf/%s", exe, rel);
	if (!access(out, R_OK))
		return 0;
	if (rf) {
		snprintf(out, cap, "%s/xperf/%s", rf, rel);
		if (!access(out, R_OK))
			return 0;
	}
	*strrchr(exe, '/') = '\0'; /* .../bin/cli -> .../bin/<rel> */
	snprintf(out, cap, "%s/../%s", exe, rel);
	return access(out, R_OK) ? -1 : 0;
}

static int find_files(struct demo *d)
{
	const char *py = getenv("XPERF_PYTHON");

	snprintf(d->python, sizeof(d->python), "%s", py && *py ? py : "/usr/bin/python3");
	if (locate(d->bpf, sizeof(d->bpf), "XPERF_BPF", "cli/xperf-bpf")) {
		fprintf(stderr, "xperf demo: xperf-bpf not found (build //cli:xperf-bpf or "
				"set XPERF_BPF)\n");
		return -1;
	}
	if (locate(d->scripts, sizeof(d->scripts), "XPERF_DEMO_DIR", "demo/mock_provider.py")) {
		fprintf(stderr, "xperf demo: demo/mock_provider.py not found (set XPERF_DEMO_DIR)\n");
		return -1;
	}
	if (!getenv("XPERF_DEMO_DIR") || !*getenv("XPERF_DEMO_DIR"))
		*strrchr(d->scripts, '/') = '\0';
	if (access(d->python, X_OK)) {
		fprintf(stderr, "xperf demo: %s: %s\n", d->python, strerror(errno));
		return -1;
	}
	return 0;
}

/* fork + exec argv in its own process group, output to log (NULL: inherited). */
static pid_t spawn(char *const argv[], const char *log)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	setpgid(0, 0);
	if (log) {
		int fd = xp_out_open_stream(log, 0);

		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
	}
	execv(argv[0], argv);
	fprintf(stderr, "xperf demo: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Starts the mock provider and waits for the port it listens on. */
static int start_mock(struct demo *d)
{
	char script[PATH_MAX + 32], log[PATH_MAX + 32], gt[PATH_MAX + 32], port[PATH_MAX + 16];
	char *argv[] = { d->python, script, "--dir", d->tmp, "--scenario", "demo", "--log", gt,
			 NULL };

	snprintf(script, sizeof(script), "%s/mock_provider.py", d->scripts);
	snprintf(log, sizeof(log), "%s/mock.log", d->tmp);
	snprintf(gt, sizeof(gt), "%s/ground_truth/mock.jsonl", d->out);
	snprintf(port, sizeof(port), "%s/port", d->tmp);
	d->mock = spawn(argv, log);
	if (d->mock < 0)
		return -1;
	for (int ms = 0; ms < PORT_WAIT_MS && !stop_signal; ms += 50) {
		FILE *f = fopen(port, "r");

		if (f) {
			int ok = fscanf(f, "%d", &d->port) == 1;

			fclose(f);
			if (ok)
				return 0;
		}
		if (waitpid(d->mock, NULL, WNOHANG) == d->mock) {
			d->mock = 0;
			fprintf(stderr, "xperf demo: the mock provider failed (see %s)\n", log);
			return -1;
		}
		usleep(50000);
	}
	fprintf(stderr, "xperf demo: %s\n", stop_signal ? "interrupted" :
					 "the mock provider did not start in time");
	return -1;
}

/* Runs the sample agent under xperf-bpf record; its exit code. */
static int run_agent(struct demo *d)
{
	char agent[PATH_MAX + 32], ca[PATH_MAX + 16], port[16], gt[PATH_MAX + 32];
	char *argv[] = { d->bpf, "record", "--quiet", "-o", d->out, "--", d->python, agent,
			 "--port", port, "--ca", ca, "--log", gt, NULL };
	int status = 0;

	snprintf(agent, sizeof(agent), "%s/sample_agent.py", d->scripts);
	snprintf(ca, sizeof(ca), "%s/ca.pem", d->tmp);
	snprintf(port, sizeof(port), "%d", d->port);
	snprintf(gt, sizeof(gt), "%s/ground_truth/agent.jsonl", d->out);
	setenv("XPERF_SESSION_ID", d->session, 1);
	d->record = spawn(argv, NULL);
	if (d->record < 0)
		return XP_EXIT_FAIL;
	while (waitpid(d->record, &status, 0) < 0) {
		if (errno != EINTR)
			return XP_EXIT_FAIL;
		if (stop_signal) /* xperf-bpf detaches cleanly and writes what it has */
			kill(d->record, SIGINT);
	}
	d->record = 0;
	if (!WIFEXITED(status))
		return XP_EXIT_FAIL;
	if (WEXITSTATUS(status) == XP_EXIT_NOPERM) {
		fprintf(stderr, "xperf demo: tracing needs root (CAP_BPF, CAP_PERFMON)\n");
		return XP_EXIT_FAIL;
	}
	return WEXITSTATUS(status) ? XP_EXIT_FAIL : XP_EXIT_OK;
}

/* Stops every process started and removes the certificates. */
static void cleanup(struct demo *d)
{
	char path[PATH_MAX + 16];

	if (d->record > 0) {
		kill(d->record, SIGINT);
		waitpid(d->record, NULL, 0);
	}
	if (d->mock > 0) {
		kill(-d->mock, SIGTERM);
		waitpid(d->mock, NULL, 0);
	}
	if (d->tmp[0]) {
		const char *names[] = { "ca.pem", "ca.key", "ca.srl", "leaf.pem", "leaf.key",
					"leaf.csr", "leaf.ext", "port", "mock.log", NULL };

		for (const char **n = names; *n; n++) {
			snprintf(path, sizeof(path), "%s/%s", d->tmp, *n);
			unlink(path);
		}
		rmdir(d->tmp);
	}
}

/* `xperf analyze session DIR` as text on stdout, and the HTML report. */
static int report(const struct demo *d)
{
	char dir[PATH_MAX + 80], html[PATH_MAX + 96];
	struct xa_options o;
	struct xa_session *s = NULL;
	int rc;

	snprintf(dir, sizeof(dir), "%s/%s", d->out, d->session);
	snprintf(html, sizeof(html), "%s/report.html", dir);
	xa_options_default(&o);
	o.format = XA_FMT_TEXT;
	rc = xa_analyze_session_dir(dir, &o, &s, stderr);
	if (rc != XA_OK) {
		fprintf(stderr, "xperf demo: no turn was recorded in %s\n", dir);
		return XP_EXIT_FAIL;
	}
	printf("\n$ xperf analyze session %s --format text\n\n", dir);
	rc = xa_render_session(s, &o, stdout);
	xa_session_free(s);
	if (rc || cmd_run_html(dir, html, stderr))
		return XP_EXIT_FAIL;
	printf("\ntraces:       %s/turn_*.json\nHTML report:  %s\n"
	       "ground truth: %s/ground_truth/{mock,agent}.jsonl (the mock's and the agent's own "
	       "timings)\n", dir, html, d->out);
	return XP_EXIT_OK;
}

static const char doc[] =
	"Runs a 6-turn sample agent against a local mock LLM provider (TLS on loopback), traced "
	"by xperf-bpf record (root), then prints the Top-down analysis and writes the HTML "
	"report. No network is used.";

static const struct argp_option options[] = {
	{ "output", 'o', "DIR", 0, "the traces go to DIR (default .xperf/demo)", 0 },
	{ 0 },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	const char **out = state->input;

	if (key != 'o')
		return ARGP_ERR_UNKNOWN;
	*out = arg;
	return 0;
}

static int setup(struct demo *d, const char *out)
{
	struct sigaction sa = { .sa_handler = on_signal };
	time_t now = time(NULL);
	struct tm tm;

	snprintf(d->out, sizeof(d->out), "%s", out);
	strftime(d->session, sizeof(d->session), "demo-%Y%m%dT%H%M%S", gmtime_r(&now, &tm));
	snprintf(d->tmp, sizeof(d->tmp), "/tmp/xperf-demo-XXXXXX");
	if (!mkdtemp(d->tmp)) {
		fprintf(stderr, "xperf demo: cannot make a temporary directory: %s\n",
			strerror(errno));
		d->tmp[0] = '\0';
		return -1;
	}
	char gt[PATH_MAX + 16];

	snprintf(gt, sizeof(gt), "%s/ground_truth", d->out);
	if (xp_mkdir_p(gt)) {
		fprintf(stderr, "xperf demo: %s: cannot create it\n", gt);
		return -1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	return 0;
}

int cmd_demo(int argc, char **argv)
{
	static const struct xp_args args = { "xperf demo", options, parse_arg, NULL, doc, 0, NULL };
	struct demo d = { 0 };
	const char *out = ".xperf/demo";
	int rc = XP_EXIT_FAIL;

	if (xp_args_parse(&args, argc, argv, &out))
		return XP_EXIT_USAGE;
	if (find_files(&d) == 0 && setup(&d, out) == 0 && start_mock(&d) == 0) {
		printf("xperf demo: mock LLM provider on https://localhost:%d; tracing the sample "
		       "agent\n(6 turns: a 429 and its retry, a failing tool, a stall, a repeated "
		       "command, a max_tokens cut)\n", d.port);
		fflush(stdout);
		rc = run_agent(&d);
		if (rc == XP_EXIT_OK)
			rc = report(&d);
	}
	cleanup(&d);
	return stop_signal ? XP_EXIT_FAIL : rc;
}
