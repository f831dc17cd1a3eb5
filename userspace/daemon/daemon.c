// SPDX-License-Identifier: MIT
/*
 * daemon.c - `xperf-bpf daemon`: one capture core (one set of BPF objects,
 * one ring) for every agent of the node. The proc object reports every
 * exec (XP_EXEC_UNTRACED for processes not traced yet); an exec that
 * matches the rules makes its process a traced agent, with its
 * descendants, before its next record; so does, in the kernel, a process
 * whose connection names a `host` or `path` rule (discover.h). One
 * /proc scan at start finds the agents already running. SIGHUP reloads the rules file; SIGTERM/SIGINT
 * end every session (open turns written with complete: false) and exit 0.
 */
#include "userspace/daemon/daemon.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/args.h"
#include "lib/atomic_file.h"
#include "lib/clock_anchor.h"
#include "lib/exit_codes.h"
#include "userspace/daemon/agents.h"
#include "userspace/daemon/discover.h"
#include "userspace/daemon/metrics.h"
#include "userspace/daemon/retention.h"
#include "userspace/daemon/rules.h"
#include "userspace/exec_decode.h"
#include "userspace/procfs.h"
#include "userspace/run/run.h"
#include "userspace/run/sink.h"

#define SWEEP_EVERY_S 1.0
#define RETENTION_EVERY_S 60.0
#define CMDLINE_MAX 1024

static const char doc[] =
	"Trace every AI agent of this machine with one set of BPF programs: a process whose "
	"executable or command line matches a rule becomes traced with its descendants, from "
	"its exec on (or from start, for one already running), as does one whose connection "
	"names a rule's host or path, from that send on; each agent tree gets its own "
	"session directory DIR/<node>/<session>/ with the files of `xperf-bpf record`.\v"
	"Exit status: 0 ok (SIGTERM/SIGINT), 1 runtime failure, 64 usage or rules error,\n"
	"77 not permitted (needs CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE).";

enum { OPT_NODE = 256, OPT_RULES, OPT_EXE, OPT_CMDLINE, OPT_HOST, OPT_PATH, OPT_MAX_AGENTS, OPT_RAW, OPT_PAYLOADS,
       OPT_RING, OPT_NO_CUDA, OPT_RET_DAYS, OPT_RET_BYTES, OPT_METRICS, OPT_MAX_CONNS,
       OPT_METRICS_INTERVAL, OPT_MAX_PROCS, OPT_MAX_SCHED };

static const struct argp_option options[] = {
	{ "output", 'o', "DIR", 0, "root of the sessions (default .xperf/traces)", 0 },
	{ "node", OPT_NODE, "NAME", 0,
	  "the node's directory under DIR (default $NODE_NAME, else the host name)", 0 },
	{ "rules", OPT_RULES, "FILE", 0,
	  "rules file: lines `exe GLOB`, `cmdline GLOB`, `host NAME` (TLS server name) or "
	  "`path /PATH` (plaintext HTTP), '#' comments; reloaded on SIGHUP "
	  "(userspace/daemon/rules.h)", 0 },
	{ "exe", OPT_EXE, "GLOB", 0, "a rule on the executable (repeatable)", 0 },
	{ "cmdline", OPT_CMDLINE, "GLOB", 0, "a rule on the command line (repeatable)", 0 },
	{ "host", OPT_HOST, "NAME", 0,
	  "a rule on the server name of a TLS connection: exact, or *.SUFFIX for the names "
	  "below SUFFIX (repeatable)", 0 },
	{ "path", OPT_PATH, "/PATH", 0,
	  "a rule on a plaintext HTTP request's path, exact (repeatable)", 0 },
	{ "max-agents", OPT_MAX_AGENTS, "N", 0,
	  "agents traced at once; more are refused, counted (default 256)", 0 },
	{ "max-connections", OPT_MAX_CONNS, "N", 0,
	  "connections an agent keeps state for, per tier (TLS, socket); beyond, the one idle "
	  "longest is evicted, counted (default 1024)", 0 },
	{ "max-processes", OPT_MAX_PROCS, "N", 0,
	  "processes an agent's turn assembler keeps; beyond, the earliest exited are "
	  "forgotten, counted (default 4096)", 0 },
	{ "max-sched-marks", OPT_MAX_SCHED, "N", 0,
	  "scheduler transitions an agent's turn assembler keeps per thread; beyond, the "
	  "earliest quarter is forgotten, counted (default 65536)", 0 },
	{ "retention-days", OPT_RET_DAYS, "D", 0,
	  "delete sessions untouched for D days (at start, then each minute; sessions in use "
	  "are never touched)", 0 },
	{ "retention-bytes", OPT_RET_BYTES, "N", 0,
	  "keep the node's sessions under N bytes, oldest deleted first", 0 },
	{ "metrics-listen", OPT_METRICS, "HOST:PORT", 0,
	  "serve the daemon's health to Prometheus at /metrics (port 0: any, printed), with "
	  "the figures of `xperf fleet serve` over the node's sessions", 0 },
	{ "metrics-interval", OPT_METRICS_INTERVAL, "S", 0,
	  "rescan of those figures (default 30 s)", 0 },
	{ "raw", OPT_RAW, "FILE", 0, "every traced record as JSON lines (mode 0600)", 0 },
	{ "capture-payloads", OPT_PAYLOADS, NULL, 0, "keep payload text (off by default)", 0 },
	{ "ring-size", OPT_RING, "BYTES", 0,
	  "ring buffer size, a power of two (default 16 MiB)", 0 },
	{ "no-cuda", OPT_NO_CUDA, NULL, 0, "no uprobes on libcudart/libcuda", 0 },
	{ "quiet", 'q', NULL, 0, "no line per session", 0 },
	{ "verbose", 'v', NULL, 0, "libbpf debug output", 0 },
	{ 0 },
};

struct daemon {
	struct xpc_opts opts;
	struct xpd_agents_opts ao;
	const char *out_dir;
	const char *node;
	const char *rules_path;
	struct xpd_rules flag_rules;	/* from --exe/--cmdline: kept across reloads */
	struct xpd_rules rules;		/* flag rules + the file's */
	struct xpd_agents *agents;
	struct xpd_retention retention;
	struct xpd_metrics_opts mo;
	struct xpd_metrics *metrics;
	uint64_t sessions_deleted;	/* by retention */
	char node_dir[PATH_MAX];
	uint64_t execs_seen;		/* exec records of untraced processes */
	uint64_t matches[XPD_RULE_KINDS][XPD_OUTCOMES];	/* processes a rule matched, by outcome */
	uint64_t net[XP_DSTAT_MAX];	/* the kernel's network discovery (last read) */
	int err;
};

static volatile sig_atomic_t stop_signal, reload;

/* SIGHUP reloads the rules; SIGINT and SIGTERM stop. */
static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload = 1;
	else
		stop_signal = sig;
}

static void signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a scraper that hangs up is not our end */
}

/* The rule kind of --exe, --cmdline, --host, --path (in OPT_ order). */
static const char *const rule_kinds[] = { "exe", "cmdline", "host", "path" };

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct daemon *d = state->input;

	switch (key) {
	case 'o':
		d->out_dir = arg;
		break;
	case OPT_NODE:
		if (!*arg || strchr(arg, '/') || !strcmp(arg, ".") || !strcmp(arg, ".."))
			xp_args_invalid(state, "a directory name");
		d->node = arg;
		break;
	case OPT_RULES:
		d->rules_path = arg;
		break;
	case OPT_EXE:
	case OPT_CMDLINE:
	case OPT_HOST:
	case OPT_PATH:
		if (xpd_rules_add(&d->flag_rules, rule_kinds[key - OPT_EXE], arg))
			xp_args_invalid(state, key == OPT_HOST ?
				"a host name of at most 63 bytes ('*.' first for the names below one)" :
				key == OPT_PATH ? "a path of at most 63 bytes from '/', no space, '?' or wildcard" :
				"a glob under 256 bytes, 256 rules at most");
		break;
	case OPT_MAX_AGENTS:
		d->ao.max_agents = xp_args_integer(state, arg, 1, 100000, "1..100000");
		break;
	case OPT_RAW:
		d->ao.raw_path = arg;
		break;
	case OPT_METRICS:
		d->mo.listen = arg;
		break;
	case OPT_METRICS_INTERVAL:
		d->mo.interval_s = xp_args_integer(state, arg, 1, 86400, "1..86400 s");
		break;
	case OPT_MAX_CONNS:
		d->ao.max_connections = xp_args_integer(state, arg, 1, 1000000, "1..1000000");
		break;
	case OPT_MAX_PROCS:
		d->ao.max_processes = xp_args_integer(state, arg, 1, 10000000, "1..10000000");
		break;
	case OPT_MAX_SCHED:
		d->ao.max_sched_marks = xp_args_integer(state, arg, 4, 100000000, "4..100000000");
		break;
	case OPT_RET_DAYS:
		d->retention.max_age_s = 86400.0 * xp_args_integer(state, arg, 1, 36500, "1..36500");
		break;
	case OPT_RET_BYTES:
		d->retention.max_bytes = xp_args_integer(state, arg, 1, LLONG_MAX, "a byte count");
		break;
	case OPT_PAYLOADS:
		d->opts.capture_payloads = d->ao.capture_payloads = true;
		break;
	case OPT_RING:
		d->opts.ring_size = xpb_ring_size_arg(state, arg);
		break;
	case OPT_NO_CUDA:
		d->opts.no_cuda = true;
		break;
	case 'q':
		d->ao.quiet = true;
		break;
	case 'v':
		d->opts.verbose++;
		break;
	case ARGP_KEY_END:
		if (!d->rules_path && !d->flag_rules.n)
			xp_args_fail(state, "no rules: give --rules FILE, --exe GLOB, --cmdline GLOB, "
					    "--host NAME or --path /PATH");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int parse_args(struct daemon *d, int argc, char **argv)
{
	/* -o too: the image's entrypoint gives one, a pod's args may give another */
	static const int repeatable[] = { OPT_EXE, OPT_CMDLINE, OPT_HOST, OPT_PATH, 'v', 'o', 0 };
	static const struct xp_args args = { "xperf-bpf daemon", options, parse_arg, NULL, doc, 0,
					     repeatable };

	return xp_args_parse(&args, argc, argv, d);
}

/*
 * The exact exe names, the hosts and the paths go to the kernel, which then
 * traces a process from its exec, or from the send that names one.
 */
static int push_names(struct daemon *d, struct xpc *c)
{
	const char *names[XPD_RULES_MAX];
	unsigned int n = xpd_rules_exact_names(&d->rules, names, XPD_RULES_MAX);

	if (xpc_discover_names(c, names, n)) {
		fprintf(stderr, "xperf-bpf daemon: %s\n", xpc_error(c));
		return -EIO;
	}
	return xpd_discover_push(c, &d->rules);
}

/* Flag rules, then the file's; the rules in force change only when the whole file is valid. */
static int load_rules(struct daemon *d)
{
	struct xpd_rules *next = malloc(sizeof(*next));
	char err[PATH_MAX + 128];
	int ret = 0;

	if (!next)
		return -ENOMEM;
	*next = d->flag_rules;
	if (d->rules_path)
		ret = xpd_rules_load(next, d->rules_path, err, sizeof(err));
	if (ret)
		fprintf(stderr, "xperf-bpf daemon: %s\n", err);
	else
		d->rules = *next;
	free(next);
	return ret;
}

/* What xpd_agents_add() made of a match. */
static enum xpd_outcome outcome(int err)
{
	switch (err) {
	case 0:
		return XPD_TRACED;
	case -EEXIST:
		return XPD_IN_TREE;
	case -EUSERS:
		return XPD_REFUSED;
	case -ESRCH:
		return XPD_GONE;
	default:
		return XPD_FAILED;
	}
}

/* Process tgid matched a rule of this kind: a new agent, unless it cannot be. */
static void add_agent(struct daemon *d, pid_t tgid, const struct xk_hdr *first,
		      enum xpd_rule_kind kind)
{
	int err = xpd_agents_add(d->agents, tgid, first);

	d->matches[kind][outcome(err)]++;
	if (err == -EUSERS && !d->ao.quiet)
		fprintf(stderr, "xperf-bpf daemon: pid %d refused: %u agents traced "
				"(--max-agents)\n", (int)tgid, d->ao.max_agents);
	else if (err == -EIO)
		d->err = err;
	else if (err && err != -EEXIST && err != -ESRCH)
		fprintf(stderr, "xperf-bpf daemon: pid %d: %s\n", (int)tgid, strerror(-err));
}

static int on_event(void *ctx, const struct xk_hdr *rec)
{
	struct daemon *d = ctx;
	const struct xk_exec *e = (const void *)rec;
	int kind = -1;

	/* Traced by the kernel at this send: a session even if it is gone by now. */
	if (rec->type == XP_EV_SOCK_DISCOVER) {
		kind = ((const struct xk_sock_discover *)rec)->kind == XP_DISCOVER_HOST ? XPD_HOST
											 : XPD_PATH;
	} else if (rec->type == XP_EV_EXEC && e->flags & (XP_EXEC_DISCOVERED | XP_EXEC_UNTRACED)) {
		d->execs_seen++;
		/* Traced by the kernel at its exec, else an untraced one against the rules. */
		if (e->flags & XP_EXEC_DISCOVERED)
			kind = XPD_EXE;
		else if (!xpc_exec_check(e, e->hdr.size))
			kind = xpd_rules_match(&d->rules, e->data, e->data + e->filename_len,
					       e->args_len);
	} else {
		return xpd_agents_route(d->agents, rec) ? -EIO : 0;
	}
	if (kind >= 0)
		add_agent(d, rec->tgid, rec, kind);
	return d->err;
}

/* A running process against the rules (its /proc exe and cmdline): the kind matched, or -1. */
static int proc_matches(const struct daemon *d, int pid)
{
	char path[64], exe[PATH_MAX] = "", args[CMDLINE_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	n = xpc_proc_read(path, args, sizeof(args));
	if (n <= 0)
		return -1;	/* a kernel thread, or gone */
	return xpd_rules_match(&d->rules, exe, args, n);
}

static int parent_of(int pid)
{
	char path[64], buf[512];
	const char *p;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	n = xpc_proc_read(path, buf, sizeof(buf));
	if (n <= 0)
		return 0;
	p = strrchr(buf, ')');
	return p && strlen(p) > 4 ? atoi(p + 4) : 0;
}

/* Whether an ancestor of pid matches too (then the ancestor's tree holds it). */
static bool ancestor_matches(const struct daemon *d, int pid)
{
	for (int p = parent_of(pid), depth = 0; p > 1 && depth < 64; p = parent_of(p), depth++)
		if (proc_matches(d, p) >= 0)
			return true;
	return false;
}

/*
 * The node's libssl is probed before the first agent is found: the first
 * uprobe on a file costs the kernel a wait (the trace-event mutex, an RCU
 * grace period: measured up to 1.6 s on a loaded node) that an agent found
 * at its exec would spend making its first calls unseen. The node's root is
 * init's (a DaemonSet with hostPID), else (not readable) the daemon's own.
 */
static void probe_node_libs(struct daemon *d, struct xpc *c)
{
	const pid_t roots[] = { 1, getpid() };

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		int n = xpc_probe_node_libs(c, roots[i]);

		if (n < 0)
			fprintf(stderr, "xperf-bpf daemon: %s (probed at an agent's discovery "
					"instead)\n", xpc_error(c));
		else if (d->opts.verbose)
			fprintf(stderr, "xperf-bpf daemon: %d TLS libraries probed under "
					"/proc/%d/root\n", n, (int)roots[i]);
	}
}

/* The one /proc scan: agents already running when the daemon starts. */
static void scan_running(struct daemon *d)
{
	DIR *dir = opendir("/proc");
	struct dirent *de;
	pid_t self = getpid();

	if (!dir) {
		fprintf(stderr, "xperf-bpf daemon: /proc: %s\n", strerror(errno));
		return;
	}
	while ((de = readdir(dir))) {
		int pid = atoi(de->d_name), kind;

		if (pid <= 0 || pid == self || xpc_proc_tgid(pid) != pid)
			continue;
		kind = proc_matches(d, pid);
		if (kind >= 0 && !ancestor_matches(d, pid))
			add_agent(d, pid, NULL, kind);
	}
	closedir(dir);
}

/* The daemon's health, rendered for /metrics: every counter only goes up. */
static void publish(struct daemon *d, struct xpc *c)
{
	struct xpd_health h = {
		.agents = xpd_agents_counters(d->agents),
		.sessions_deleted = d->sessions_deleted,
		.execs_seen = d->execs_seen,
		.max_agents = d->ao.max_agents,
		.max_connections = d->ao.max_connections,
		.max_processes = d->ao.max_processes,
		.max_sched_marks = d->ao.max_sched_marks,
		.rules = d->rules.n,
		.matches = d->matches,
		.net = d->net,
	};

	if (!d->metrics || xpc_counts(c, &h.counts))
		return;
	xpc_discover_stats(c, d->net);	/* left as they were when unread: never lower */
	xpc_health(c, &h.core);
	xpd_metrics_health(d->metrics, &h);
}

static void retention(struct daemon *d)
{
	unsigned int n = xpd_retention_sweep(d->node_dir, &d->retention);

	d->sessions_deleted += n;
	if (n && !d->ao.quiet)
		fprintf(stderr, "xperf-bpf daemon: retention: %u sessions deleted\n", n);
}

static int run_loop(struct daemon *d, struct xpc *c)
{
	double next_sweep = xp_now_s() + SWEEP_EVERY_S;
	double next_retention = xp_now_s() + RETENTION_EVERY_S;
	int n = 0;

	while (!stop_signal && !d->err) {
		if (reload) {
			reload = 0;
			if (!load_rules(d) && !push_names(d, c) && !d->ao.quiet)
				fprintf(stderr, "xperf-bpf daemon: %u rules loaded\n", d->rules.n);
		}
		n = xpc_poll(c, 100);
		if (n < 0)
			break;
		if (xp_now_s() >= next_sweep) {
			xpd_agents_sweep(d->agents);
			publish(d, c);
			next_sweep = xp_now_s() + SWEEP_EVERY_S;
		}
		if (xp_now_s() >= next_retention) {
			retention(d);
			next_retention = xp_now_s() + RETENTION_EVERY_S;
		}
	}
	if (n >= 0 && !d->err)
		n = xpc_drain(c);
	if (n < 0 && !d->err) {
		fprintf(stderr, "xperf-bpf daemon: reading the ring buffer: %s\n", strerror(-n));
		return XP_EXIT_FAIL;
	}
	return d->err ? XP_EXIT_FAIL : XP_EXIT_OK;
}

static void report(struct xpc *c, const struct xpd_counters *n, const struct daemon *d)
{
	struct xpc_counts k;
	uint64_t total = 0;

	xpc_counts(c, &k);	/* all 0 when unread */
	for (int t = 0; t < XP_EV_TYPE_MAX; t++)
		total += k.records[t];
	fprintf(stderr, "xperf-bpf daemon: %llu agents traced, %llu refused, %llu missed; "
			"%llu records (%llu execs seen), %llu lost; %llu sessions deleted\n",
		(unsigned long long)n->agents_traced, (unsigned long long)n->agents_refused,
		(unsigned long long)n->agents_missed, (unsigned long long)total,
		(unsigned long long)d->execs_seen, (unsigned long long)xpc_counts_dropped(&k),
		(unsigned long long)d->sessions_deleted);
}

static const char *node_name(const char *flag, char *buf, size_t len)
{
	const char *env = getenv("NODE_NAME");

	if (flag)
		return flag;
	if (env && *env && !strchr(env, '/'))
		return env;
	if (gethostname(buf, len) || !*buf)
		snprintf(buf, len, "node");
	buf[len - 1] = '\0';
	return buf;
}

int xpd_main(int argc, char **argv)
{
	struct daemon *d = calloc(1, sizeof(*d));
	char host[256], msg[256];
	struct xpc *c = NULL;
	int code;

	if (!d)
		return XP_EXIT_FAIL;
	d->ao.max_agents = 256;
	d->ao.max_connections = 1024;
	d->ao.max_processes = 4096;
	d->ao.max_sched_marks = 65536;
	code = parse_args(d, argc, argv);
	if (!code && load_rules(d))
		code = XP_EXIT_USAGE;
	if (code)
		goto out;
	unsetenv("XPERF_SESSION_ID");	/* one id per agent, never one for all */
	snprintf(d->node_dir, sizeof(d->node_dir), "%s/%s",
		 d->out_dir ? d->out_dir : XPB_TRACE_DIR_DEFAULT,
		 node_name(d->node, host, sizeof(host)));
	d->ao.node_dir = d->node_dir;
	d->opts.discover_execs = true;
	d->opts.discover_net = true;
	d->opts.filter_first = true;
	d->opts.on_event = on_event;
	d->opts.ctx = d;
	signals();
	code = xpc_open(&d->opts, &c, msg, sizeof(msg));
	if (code) {
		fprintf(stderr, "xperf-bpf daemon: %s\n", msg);
		code = code == -EPERM ? XP_EXIT_NOPERM : XP_EXIT_FAIL;
		goto out;
	}
	d->agents = xpd_agents_new(c, &d->ao);
	if (!d->agents || push_names(d, c)) {
		code = XP_EXIT_FAIL;
		goto out;
	}
	d->mo.node_dir = d->node_dir;
	d->mo.quiet = d->ao.quiet;
	/* The fleet figures scan it (and keep their ledger there) before the first session. */
	if (d->mo.listen && (code = xp_mkdir_p(d->node_dir))) {
		fprintf(stderr, "xperf-bpf daemon: %s: %s\n", d->node_dir, strerror(-code));
		code = XP_EXIT_FAIL;
		goto out;
	}
	if (d->mo.listen && !(d->metrics = xpd_metrics_start(&d->mo))) {
		code = XP_EXIT_USAGE;
		goto out;
	}
	probe_node_libs(d, c);
	retention(d);
	scan_running(d);
	publish(d, c);
	if (!d->ao.quiet)
		fprintf(stderr, "xperf-bpf daemon: ready: %u rules, sessions in %s\n", d->rules.n,
			d->node_dir);
	code = run_loop(d, c);
	if (stop_signal && !d->ao.quiet)
		fprintf(stderr, "xperf-bpf daemon: %s: ending sessions\n", strsignal(stop_signal));
out:
	if (d->agents) {
		const struct xpd_counters n = *xpd_agents_counters(d->agents);

		if (xpd_agents_free(d->agents))
			code = XP_EXIT_FAIL;
		report(c, &n, d);
		xpd_discover_report(c);
	}
	xpd_metrics_stop(d->metrics);
	xpc_close(c);
	free(d);
	return code;
}
