// SPDX-License-Identifier: MIT
/*
 * cuda_probe.c - xperf-cuda-probe: the zero-injection GPU fallback. Loads
 * bpf/cuda.bpf.c, attaches uprobes to the CUDA runtime (libcudart) and driver
 * (libcuda, where present) launch/copy/sync functions, traces one process
 * (a command it starts, or -p PID), and writes each call as a `launch` or
 * `sync` record to <dir>/gpu-<pid>.xpgpu with source "uprobe". At the end it
 * prints per function: calls, total time inside the call (blocking time),
 * calls that returned an error, and the records lost in the ring buffer.
 *
 * usage: xperf-cuda-probe [--cudart PATH] [--libcuda PATH] [--out DIR]
 *                         [--ring-size BYTES] (-p PID | -- COMMAND [ARGS...])
 * exit: 0 traced (the command's own status is printed), 1 runtime failure
 * (BPF load/attach, output), 64 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/types.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/xperf.h"
#include "bpf/cuda.h"
#include "bpf/cuda.skel.h"
#include "gpu/collector_config.h"
#include "gpu/cuda_uprobes.h"
#include "gpu/gpu_records.h"

struct stats {
	unsigned long long calls, total_ns, errors;
};

static struct {
	struct xp_gpu_writer out;
	struct stats st[XP_CUDA_FN_COUNT];
	unsigned long long write_errors;
	char lib[XP_CUDA_LIB_COUNT][PATH_MAX];
	unsigned long ring_size; /* 0: the object's default (16 MiB) */
	struct bpf_link *links[2 * XP_CUDA_FN_COUNT];
	int n_links;
} g;

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static int on_event(void *ctx, void *data, size_t len)
{
	const struct xp_cuda_call *c = data;
	struct xp_gpu_rec r;

	(void)ctx;
	if (xp_cuda_call_to_rec(data, len, &r))
		return 0;
	g.st[c->fn].calls++;
	g.st[c->fn].total_ns += r.end_ns - r.start_ns;
	g.st[c->fn].errors += c->ret != 0;
	if (xp_gpu_writer_add(&g.out, &r))
		g.write_errors++;
	return 0;
}

/* The library a running process maps whose path contains `needle`. */
static int find_mapped(int pid, const char *needle, char *out, size_t len)
{
	char path[64], line[PATH_MAX + 128];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (p && strstr(p, needle)) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(out, len, "%s", p);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* Default library paths for a command not started yet. */
static void default_libs(void)
{
	static const char *const libcuda[] = {"/usr/lib/x86_64-linux-gnu/libcuda.so.1",
					      "/usr/lib64/libcuda.so.1", "/usr/lib/libcuda.so.1"};
	const char *cuda = getenv("XPERF_CUDA_PATH");
	char p[PATH_MAX];

	if (!g.lib[XP_CUDA_LIB_CUDART][0]) {
		snprintf(p, sizeof(p), "%s/lib64/libcudart.so", cuda ? cuda : "/usr/local/cuda");
		if (!realpath(p, g.lib[XP_CUDA_LIB_CUDART]))
			g.lib[XP_CUDA_LIB_CUDART][0] = '\0';
	}
	char *drv = g.lib[XP_CUDA_LIB_CUDA];

	for (size_t i = 0; !drv[0] && i < sizeof(libcuda) / sizeof(*libcuda); i++)
		if (!access(libcuda[i], R_OK))
			snprintf(drv, PATH_MAX, "%s", libcuda[i]);
}

static int trace_pid(struct cuda_bpf *skel, int pid)
{
	struct xp_traced t = {.depth = 0, .root_tgid = (__u32)pid};
	__u32 key = (__u32)pid;

	return bpf_map__update_elem(skel->maps.traced, &key, sizeof(key), &t, sizeof(t), BPF_ANY);
}

/* Fork the command stopped on a pipe; it runs once it is in `traced`. */
static int spawn(char **argv, int *gate)
{
	int fd[2];
	pid_t pid;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid == 0) {
		char c;

		close(fd[1]);
		if (read(fd[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "xperf-cuda-probe: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd[0]);
	*gate = fd[1];
	return pid;
}

static unsigned long long ring_drops(struct cuda_bpf *skel)
{
	int ncpu = libbpf_num_possible_cpus();
	__u32 key = XP_EV_CUDA_CALL;
	unsigned long long sum = 0;
	__u64 *v;

	if (ncpu <= 0 || !(v = calloc((size_t)ncpu, sizeof(*v))))
		return 0;
	if (!bpf_map__lookup_elem(skel->maps.drops, &key, sizeof(key), v, ncpu * sizeof(*v), 0))
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

/* Poll until the child exits (child > 0), the pid disappears, or a signal. */
static int run(struct ring_buffer *rb, int pid, int child)
{
	int status = 0;

	while (!stop) {
		if (ring_buffer__poll(rb, 100) < 0 && errno != EINTR)
			break;
		if (child > 0 && waitpid(child, &status, WNOHANG) == child)
			break;
		if (child <= 0 && kill(pid, 0) && errno == ESRCH)
			break;
	}
	while (ring_buffer__consume(rb) > 0)
		;
	return status;
}

static void report(struct cuda_bpf *skel, int pid)
{
	unsigned long long lost = ring_drops(skel) + g.write_errors;

	for (unsigned f = 0; f < XP_CUDA_FN_COUNT; f++)
		if (g.st[f].calls || f < XP_CUDA_CU_LAUNCH_KERNEL || g.lib[XP_CUDA_LIB_CUDA][0])
			fprintf(stderr,
				"xperf-cuda-probe: %s calls=%llu total_ns=%llu errors=%llu\n",
				xp_cuda_fn_name(f), g.st[f].calls, g.st[f].total_ns,
				g.st[f].errors);
	fprintf(stderr, "xperf-cuda-probe: pid %d: %llu records lost\n", pid, lost);
	if (lost)
		xp_gpu_writer_dropped(&g.out, lost);
}

static const char *env(const char *name)
{
	return getenv(name);
}

static int usage(void)
{
	fprintf(stderr, "usage: xperf-cuda-probe [--cudart PATH] [--libcuda PATH] [--out DIR] "
			"[--ring-size BYTES] (-p PID | -- COMMAND [ARGS...])\n");
	return 64;
}

/* Options into g.lib / *out / *pid; returns the index of COMMAND or -1. */
static int parse_args(int argc, char **argv, struct xp_collector_config *cfg, int *pid)
{
	static const struct option opts[] = {{"cudart", required_argument, NULL, 'r'},
					     {"libcuda", required_argument, NULL, 'c'},
					     {"out", required_argument, NULL, 'o'},
					     {"ring-size", required_argument, NULL, 's'},
					     {NULL, 0, NULL, 0}};
	char err[256];
	int c;

	if (xp_collector_config_load(cfg, env, err, sizeof(err)))
		cfg->out_dir[0] = '\0';
	while ((c = getopt_long(argc, argv, "+p:", opts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'r':
		case 'c':
			snprintf(g.lib[c == 'r' ? XP_CUDA_LIB_CUDART : XP_CUDA_LIB_CUDA], PATH_MAX,
				 "%s", optarg);
			break;
		case 'o':
			snprintf(cfg->out_dir, sizeof(cfg->out_dir), "%s", optarg);
			break;
		case 'p':
			*pid = (int)strtol(optarg, &end, 10);
			if (*end || *pid <= 0)
				return -1;
			break;
		case 's': /* a power of two, at least a page: the ring buffer's rule */
			g.ring_size = strtoul(optarg, &end, 10);
			if (*end || g.ring_size < 4096 || (g.ring_size & (g.ring_size - 1)))
				return -1;
			break;
		default:
			return -1;
		}
	}
	if ((*pid > 0) == (optind < argc) || !cfg->out_dir[0])
		return -1;
	return optind;
}

static int trace(struct cuda_bpf *skel, int pid, char **cmd, const char *dir)
{
	struct ring_buffer *rb =
		ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, NULL, NULL);
	int gate = -1, child = 0, status;

	if (!rb)
		return -1;
	if (cmd) {
		child = pid = spawn(cmd, &gate);
		if (pid < 0) {
			ring_buffer__free(rb);
			return -1;
		}
	}
	if (xp_gpu_writer_open(&g.out, dir, pid, XP_GPU_SRC_UPROBE)) {
		fprintf(stderr, "xperf-cuda-probe: cannot write %s\n", dir);
		if (child > 0)
			kill(child, SIGKILL);
		ring_buffer__free(rb);
		return -1;
	}
	if (trace_pid(skel, pid))
		fprintf(stderr, "xperf-cuda-probe: cannot add pid %d to the traced set\n", pid);
	if (gate >= 0 && (write(gate, "g", 1) != 1 || close(gate)))
		fprintf(stderr, "xperf-cuda-probe: cannot release the command\n");
	status = run(rb, pid, child);
	if (child > 0)
		fprintf(stderr, "xperf-cuda-probe: command exited with status %d\n",
			WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	report(skel, pid);
	ring_buffer__free(rb);
	return 0;
}

int main(int argc, char **argv)
{
	struct xp_collector_config cfg;
	struct cuda_bpf *skel;
	int pid = 0, cmd = parse_args(argc, argv, &cfg, &pid), rc = 1;

	g.out.fd = -1;

	if (cmd < 0)
		return usage();
	if (pid > 0) {
		if (!g.lib[XP_CUDA_LIB_CUDART][0])
			find_mapped(pid, "/libcudart.so", g.lib[XP_CUDA_LIB_CUDART], PATH_MAX);
		if (!g.lib[XP_CUDA_LIB_CUDA][0])
			find_mapped(pid, "/libcuda.so", g.lib[XP_CUDA_LIB_CUDA], PATH_MAX);
	}
	default_libs();
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	skel = cuda_bpf__open();
	if (skel && g.ring_size)
		bpf_map__set_max_entries(skel->maps.events, (__u32)g.ring_size);
	if (skel && cuda_bpf__load(skel)) {
		cuda_bpf__destroy(skel);
		skel = NULL;
	}
	if (!skel) {
		fprintf(stderr, "xperf-cuda-probe: cannot load cuda.bpf.o: %s\n", strerror(errno));
		return 1;
	}
	if (xp_cuda_attach(skel->obj, (const char *const[]){g.lib[0], g.lib[1]}, g.links,
			   &g.n_links) == 0)
		fprintf(stderr, "xperf-cuda-probe: no CUDA function could be probed\n");
	else
		rc = trace(skel, pid, pid > 0 ? NULL : argv + cmd, cfg.out_dir) ? 1 : 0;
	if (xp_gpu_writer_close(&g.out) && !rc)
		rc = 1;
	while (g.n_links)
		bpf_link__destroy(g.links[--g.n_links]);
	cuda_bpf__destroy(skel);
	return rc;
}
