// SPDX-License-Identifier: MIT
/*
 * xperf_bpf.c - the `xperf-bpf` command: trace a running process tree
 * (attach) or start a command already traced (record), feed the records
 * to the sinks (raw dump, capture stats, turn assembly), report losses.
 *
 * Lifecycle: parse -> xpc_open (checks, maps, load, attach) -> target
 * (add pid / gated spawn) -> sinks -> poll until exit/duration/signal ->
 * drain -> sinks end -> xpc_close. One cleanup path.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/args.h"
#include "lib/atomic_file.h"
#include "lib/dir_lock.h"
#include "lib/version.h"
#include "userspace/capture.h"
#include "userspace/daemon/daemon.h"
#include "userspace/run/run.h"
#include "userspace/sock_hooks.h"
#include "userspace/spawn.h"

static struct env {
	bool record;
	pid_t pid;
	double duration;
	struct xpb_run run;
	struct xpb_unwritten unwritten;
	struct xpc_opts opts;
	char session_id[XPB_SESSION_ID_MAX];
	int session_lock;
	char cupti[PATH_MAX]; /* record --cupti: the collector the command gets injected */
	bool exit_status;     /* record --exit-status: exit as CMD did */
} env = { .run.unwritten = &env.unwritten, .session_lock = -1 };

const char *argp_program_version = "xperf-bpf " XP_VERSION;
#define EXIT_DOC                                                            \
	"Exit status: 0 ok, 1 runtime failure, 2 no such process or command,\n"  \
	"64 usage error, 75 session directory in use by another run,\n"         \
	"77 not permitted (needs root or CAP_BPF+CAP_PERFMON)."
/* Each subcommand's own help; `xperf-bpf --help` shows doc. */
static const char record_doc[] =
	"Run CMD and trace it and every process it starts with eBPF (processes, scheduler, "
	"TLS, sockets, CUDA calls); its turns go to DIR/<session>/ as it runs.\n"
	"\n"
	"EXAMPLES:\n"
	"    xperf-bpf record -o .xperf/traces -- python3 agent.py\n"
	"    xperf-bpf record --raw events.jsonl --duration 60 -- node agent.js\n"
	"    xperf-bpf record --cupti -- python3 serve.py   # + its GPU activity\n"
	"\v" EXIT_DOC;
static const char attach_doc[] =
	"Trace the running process PID, its threads and every process it starts from now "
	"on, until it exits or --duration ends; its turns go to DIR/<session>/.\n"
	"\n"
	"EXAMPLES:\n"
	"    xperf-bpf attach --pid 1234 --duration 30 -o traces\n"
	"\v" EXIT_DOC;
static const char doc[] =
	"Trace an AI agent's process tree with eBPF: processes, scheduler, TLS, sockets, "
	"CUDA launch/copy/sync calls.\v"
	"Commands:\n"
	"  xperf-bpf attach --pid PID [OPTION...]\n"
	"  xperf-bpf record [OPTION...] -- CMD [ARG...]\n"
	"  xperf-bpf daemon [--rules FILE] [--exe GLOB] [--cmdline GLOB] [OPTION...]\n"
	"\n"
	"EXAMPLES:\n"
	"    xperf-bpf attach --pid 1234 --duration 30 -o traces\n"
	"    xperf-bpf record --raw events.jsonl -- python3 agent.py\n"
	"\n" EXIT_DOC "\n"
	"The options of each: 'xperf-bpf record --help', 'xperf-bpf attach --help',\n"
	"'xperf-bpf daemon --help'.";

enum { OPT_RAW = 256, OPT_NO_PLAIN, OPT_PAYLOADS, OPT_RING, OPT_NO_SCHED_EV, OPT_RAW_TP,
       OPT_NO_CUDA, OPT_PAYLOAD_CAP, OPT_TLS_PER_PROC, OPT_SOCK_HOOKS, OPT_CUPTI,
       OPT_EXIT_STATUS };

static const struct argp_option opts[] = {
	{ "pid", 'p', "PID", 0, "attach: the process to trace (threads, descendants too)", 0 },
	{ "duration", 'd', "SECONDS", 0, "stop after this long (default: target exit)", 0 },
	{ "output", 'o', "DIR", 0, "DIR/<session>/ gets capture.json and the turns", 0 },
	{ "raw", OPT_RAW, "FILE", 0, "dump every record as JSON lines (mode 0600)", 0 },
	{ "no-plaintext", OPT_NO_PLAIN, NULL, 0, "no TLS uprobes: socket tier only", 0 },
	{ "capture-payloads", OPT_PAYLOADS, NULL, 0, "keep payload text (off by default)", 0 },
	{ "ring-size", OPT_RING, "BYTES", 0, "ring size, a power of two (default 16 MiB)", 0 },
	{ "payload-cap", OPT_PAYLOAD_CAP, "BYTES", 0, "TLS bytes kept per SSL call (default 4 MiB)", 0 },
	{ "no-sched-events", OPT_NO_SCHED_EV, NULL, 0, "scheduler totals only, no records", 0 },
	{ "raw-tp", OPT_RAW_TP, NULL, 0, "raw tracepoints even where tp_btf works (the fallback)", 0 },
	{ "no-cuda", OPT_NO_CUDA, NULL, 0, "no uprobes on libcudart/libcuda", 0 },
	{ "cupti", OPT_CUPTI, "LIB", OPTION_ARG_OPTIONAL,
	  "record: inject the CUPTI collector into CMD (CUDA_INJECTION64_PATH; default: "
	  "libxperf_cupti.so beside xperf-bpf or in ../gpu/)", 0 },
	{ "exit-status", OPT_EXIT_STATUS, NULL, 0,
	  "record: exit with CMD's status (128+N when signal N killed it), as strace does, "
	  "unless xperf-bpf itself failed", 0 },
	{ "tls-per-process", OPT_TLS_PER_PROC, NULL, 0,
	  "TLS uprobes in traced processes only (others never trap)", 0 },
	{ "socket-hooks", OPT_SOCK_HOOKS, "MODE", 0,
	  "socket tier on: auto (cheapest here), socket (tracepoints), syscalls", 0 },
	{ "quiet", 'q', NULL, 0, "no summary (losses are still reported)", 0 },
	{ "verbose", 'v', NULL, 0, "libbpf debug output", 0 },
	{ 0 },
};

/*
 * --cupti[=LIB]: LIB, or the collector installed beside xperf-bpf (a
 * package) or built beside it (bazel-bin/gpu/), as an absolute path: the
 * CUDA driver dlopens it in the command's working directory.
 */
static void cupti_arg(struct argp_state *state, const char *arg)
{
	static const char *const beside[] = { "libxperf_cupti.so", "../gpu/libxperf_cupti.so" };
	char self[PATH_MAX] = "", want[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *dir = n > 0 ? (self[n] = '\0', dirname(self)) : NULL;

	for (size_t i = 0; !arg && dir && i < sizeof(beside) / sizeof(beside[0]); i++) {
		snprintf(want, sizeof(want), "%s/%s", dir, beside[i]);
		if (!access(want, R_OK))
			arg = want;
	}
	if (!arg)
		xp_args_fail(state, "--cupti: no libxperf_cupti.so beside xperf-bpf; give "
				    "--cupti=LIB");
	else if (!realpath(arg, env.cupti) || access(env.cupti, R_OK))
		xp_args_fail(state, "--cupti: %s: %s", arg, strerror(errno));
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'p':
		env.pid = xp_args_integer(state, arg, 1, 4194304, "a process id");
		break;
	case 'd':
		env.duration = xp_args_number(state, arg, 0.001, 1e7, "seconds, 0.001..1e7");
		break;
	case 'o':
		env.run.out_dir = arg;
		break;
	case OPT_RAW:
		env.run.raw_path = arg;
		break;
	case OPT_NO_PLAIN:
		env.opts.no_plaintext = true;
		break;
	case OPT_PAYLOADS:
		env.opts.capture_payloads = env.run.capture_payloads = true;
		break;
	case OPT_RING:
		env.opts.ring_size = xpb_ring_size_arg(state, arg);
		break;
	case OPT_PAYLOAD_CAP:
		env.opts.payload_cap = xp_args_integer(state, arg, XP_TLS_CHUNK, XP_TLS_CAP_MAX,
						       "bytes, 16K..16M");
		break;
	case OPT_NO_SCHED_EV:
		env.opts.no_sched_events = true;
		break;
	case OPT_RAW_TP:
		env.opts.raw_tp = true;
		break;
	case OPT_TLS_PER_PROC:
		env.opts.tls_per_process = true;
		break;
	case OPT_SOCK_HOOKS:
		env.opts.sock_hooks = xpc_sock_hooks_parse(arg);
		if (env.opts.sock_hooks < 0)
			xp_args_invalid(state, "auto, socket or syscalls");
		break;
	case OPT_NO_CUDA:
		env.opts.no_cuda = true;
		break;
	case OPT_CUPTI:
		cupti_arg(state, arg);
		break;
	case OPT_EXIT_STATUS:
		env.exit_status = true;
		break;
	case 'q':
		env.run.quiet = true;
		break;
	case 'v':
		env.opts.verbose++;
		break;
	case ARGP_KEY_ARG:
		if (!env.record)
			return ARGP_ERR_UNKNOWN;
		env.run.command = &state->argv[state->next - 1];
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (env.record && !env.run.command)
			xp_args_fail(state, "missing command (record -- CMD [ARG...])");
		if (!env.record && !env.pid)
			xp_args_fail(state, "missing --pid");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The subcommand's options: --pid is attach's alone, --cupti and --exit-status record's. */
static const struct argp_option *options_of(bool record)
{
	static struct argp_option own[sizeof(opts) / sizeof(opts[0])];
	size_t k = 0;

	for (const struct argp_option *o = opts; o->name || o->key; o++)
		if (record ? o->key != 'p' : o->key != OPT_CUPTI && o->key != OPT_EXIT_STATUS)
			own[k++] = *o;
	return own;
}

/* Parse the subcommand's argv (argv[0]: attach or record) into env; exits 64 on a usage error. */
static void parse_args(int argc, char **argv)
{
	static const int repeatable[] = { 'v', 0 };
	struct xp_args args = { NULL, NULL, parse_arg, NULL, NULL, ARGP_IN_ORDER, repeatable };
	const char *hooks;

	env.record = !strcmp(argv[0], "record");
	args.doc = env.record ? record_doc : attach_doc;
	args.name = env.record ? "xperf-bpf record" : "xperf-bpf attach";
	args.options = options_of(env.record);
	args.args_doc = env.record ? "-- CMD [ARG...]" : "--pid PID";
	/* The flag wins; the variable lets a node agent (or a test) set it for every run. */
	hooks = getenv("XPERF_SOCKET_HOOKS");
	if (hooks && (env.opts.sock_hooks = xpc_sock_hooks_parse(hooks)) < 0) {
		fprintf(stderr, "xperf-bpf: invalid XPERF_SOCKET_HOOKS (auto, socket, syscalls): %s\n",
			hooks);
		exit(XP_EXIT_USAGE);
	}
	if (xp_args_parse(&args, argc, argv, &env))
		exit(XP_EXIT_USAGE);
}

static int exit_code_of(int err)
{
	return err == -EPERM ? XP_EXIT_NOPERM : err == -ESRCH ? XP_EXIT_INVALID : XP_EXIT_FAIL;
}

/*
 * Name the run's session and lock DIR/<session>/ for the run (before a
 * recorded command runs): two runs given the same XPERF_SESSION_ID would
 * write over each other's turn files and capture.json. An XP_EXIT_* code.
 */
static int claim_session(pid_t root)
{
	const char *dir = env.run.out_dir ? env.run.out_dir : XPB_TRACE_DIR_DEFAULT;
	char path[PATH_MAX];
	pid_t holder;
	int swept;

	env.run.session_id = xpb_session_id(root, env.run.command, env.session_id);
	snprintf(path, sizeof(path), "%s/%s", dir, env.run.session_id);
	env.session_lock = xp_dir_lock(path, &holder);
	if (env.session_lock == -EWOULDBLOCK) {
		fprintf(stderr, "xperf-bpf: %s is in use by xperf-bpf pid %d; "
				"set another XPERF_SESSION_ID\n", path, (int)holder);
		return XP_EXIT_BUSY;
	}
	if (env.session_lock < 0) {
		fprintf(stderr, "xperf-bpf: %s: %s\n", path, strerror(-env.session_lock));
		return XP_EXIT_FAIL;
	}
	/* the session is ours now: what a killed run of it left half-written goes */
	swept = xp_atomic_sweep(path);
	if (swept > 0 && !env.run.quiet)
		fprintf(stderr, "xperf-bpf: %s: %d temporary file(s) of a killed run removed\n",
			path, swept);
	return XP_EXIT_OK;
}

/*
 * record: start the command gated, attach to its file, name the session,
 * trace its pid, then let it exec. The pid joins the filter last, just
 * before the release, so the time the gate held it is not the command's.
 */
static int start_command(struct xpc *c, struct xpc_spawn *sp)
{
	char path[PATH_MAX];
	int err;

	setenv("XPERF_GPU_DIR", xpb_gpu_dir(env.run.out_dir, path, sizeof(path)), 1);
	if (env.cupti[0])
		setenv("CUDA_INJECTION64_PATH", env.cupti, 1);
	err = xpc_spawn_gated(env.run.command, sp);

	if (err) {
		fprintf(stderr, "xperf-bpf: cannot fork: %s\n", strerror(-err));
		return XP_EXIT_FAIL;
	}
	if (xpc_resolve_command(env.run.command[0], path, sizeof(path)) == 0)
		xpc_add_command(c, sp->pid, path);
	err = claim_session(sp->pid);
	if (err) {
		xpc_spawn_abort(sp);
		return err;
	}
	err = xpc_add_pid(c, sp->pid);
	if (err) {
		fprintf(stderr, "xperf-bpf: %s\n", xpc_error(c));
		xpc_spawn_abort(sp);
		return XP_EXIT_FAIL;
	}
	err = xpc_spawn_release(sp);
	if (err) {
		fprintf(stderr, "xperf-bpf: %s: %s\n", env.run.command[0], strerror(-err));
		return XP_EXIT_INVALID;
	}
	return XP_EXIT_OK;
}

/* How the command ended, said unless quiet: its exit status as a shell has it, -1 if running. */
static int report_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, WNOHANG) != pid)
		return -1;
	if (WIFSIGNALED(status)) {
		if (!env.run.quiet)
			fprintf(stderr, "xperf-bpf: %s killed by signal %d\n", env.run.command[0],
				WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	if (!env.run.quiet)
		fprintf(stderr, "xperf-bpf: %s exited with code %d\n", env.run.command[0],
			WEXITSTATUS(status));
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	struct xpb_sinks *sinks = NULL;
	struct xpc_spawn sp = { .pid = -1 };
	struct xpc *c = NULL;
	char msg[256];
	int err, code;

	static const char *const commands[] = { "attach", "record", "daemon", NULL };
	int k = xp_args_command("xperf-bpf", doc, commands, argc, argv);

	if (!strcmp(argv[k], "daemon"))
		return xpd_main(argc - k, argv + k);
	parse_args(argc - k, argv + k);
	sinks = xpb_sinks_new();
	if (!sinks) {
		fprintf(stderr, "xperf-bpf: out of memory\n");
		return XP_EXIT_FAIL;
	}
	env.opts.on_event = xpb_sinks_event;
	env.opts.ctx = sinks;
	xpb_signals();
	err = xpc_open(&env.opts, &c, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "xperf-bpf: %s\n", msg);
		code = exit_code_of(err);
		goto cleanup;
	}
	/* Outputs open before the target starts: a bad path costs no run. */
	err = xpb_sinks_begin(sinks, &env.run);
	if (err) {
		code = xp_out_exit(err);
		goto cleanup;
	}
	if (env.record) {
		code = start_command(c, &sp);
		if (code)
			goto cleanup;
		env.run.root = sp.pid;
	} else {
		err = xpc_add_pid(c, env.pid);
		if (err) {
			fprintf(stderr, "xperf-bpf: %s\n", xpc_error(c));
			code = exit_code_of(err);
			goto cleanup;
		}
		code = claim_session(env.pid);
		if (code)
			goto cleanup;
		env.run.root = env.pid;
		/* the line a script waits for before it starts what is to be traced */
		if (!env.run.quiet)
			fprintf(stderr, "xperf-bpf: tracing pid %d\n", (int)env.pid);
	}
	code = xpb_run(c, sinks, &env.run, env.duration);
	sinks = NULL;
	if (env.record) {
		int status = report_child(sp.pid);

		if (env.exit_status && code == XP_EXIT_OK && status >= 0)
			code = status;
	}
cleanup:
	xpb_sinks_free(sinks);
	xpc_close(c);
	if (env.session_lock >= 0)
		close(env.session_lock);
	return code;
}
