// SPDX-License-Identifier: MIT
/*
 * spawn.c - gated fork/exec (spawn.h). The exec error travels back on a
 * close-on-exec pipe: the parent reads EOF when exec succeeded, or the
 * child's errno when it failed (the classic self-pipe report).
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "userspace/spawn.h"

static void child(char *const argv[], int gate, int err)
{
	char go;
	int e;

	if (read(gate, &go, 1) != 1)
		_exit(127);
	execvp(argv[0], argv);
	e = errno;
	if (write(err, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int xpc_resolve_command(const char *name, char *out, size_t outlen)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/')) {
		snprintf(out, outlen, "%s", name);
		return 0;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		if ((size_t)snprintf(out, outlen, "%.*s/%s", (int)n, n ? p : ".", name) < outlen &&
		    access(out, X_OK) == 0)
			return 0;
		p += n + (p[n] == ':');
	}
	return -ENOENT;
}

int xpc_spawn_gated(char *const argv[], struct xpc_spawn *s)
{
	int gate[2], err[2];

	if (pipe2(gate, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		close(gate[0]);
		close(gate[1]);
		return -errno;
	}
	s->pid = fork();
	if (s->pid < 0) {
		int e = -errno;

		close(gate[0]);
		close(gate[1]);
		close(err[0]);
		close(err[1]);
		return e;
	}
	if (s->pid == 0) {
		close(gate[1]);
		close(err[0]);
		child(argv, gate[0], err[1]);
	}
	close(gate[0]);
	close(err[1]);
	s->gate_fd = gate[1];
	s->err_fd = err[0];
	return 0;
}

int xpc_spawn_release(struct xpc_spawn *s)
{
	int e = 0;
	ssize_t n;

	if (write(s->gate_fd, "g", 1) != 1)
		e = errno;
	close(s->gate_fd);
	s->gate_fd = -1;
	do
		n = read(s->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(s->err_fd);
	s->err_fd = -1;
	if (n == sizeof(e) || (n <= 0 && e)) {
		waitpid(s->pid, NULL, 0);
		return -e;
	}
	return 0;
}

void xpc_spawn_abort(struct xpc_spawn *s)
{
	close(s->gate_fd);
	close(s->err_fd);
	waitpid(s->pid, NULL, 0);
}
