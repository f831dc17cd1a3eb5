/* SPDX-License-Identifier: MIT */
/*
 * spawn.h - start a command stopped before exec, so it can be traced from
 * its first instruction: the child blocks reading a pipe until the parent
 * has added its pid to the traced set and attached, then execs.
 */
#ifndef XPERF_USERSPACE_SPAWN_H
#define XPERF_USERSPACE_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

struct xpc_spawn {
	pid_t pid;
	int gate_fd;	/* write end: one byte releases the child */
	int err_fd;	/* read end, close-on-exec in the child: EOF = exec happened */
};

/* Fork a child that will execvp(argv[0], argv) once released. 0 or -errno. */
int xpc_spawn_gated(char *const argv[], struct xpc_spawn *s);

/*
 * Let the child exec. 0 once exec succeeded; -errno of a failed exec
 * (e.g. -ENOENT for an unknown command; the child is then reaped).
 */
int xpc_spawn_release(struct xpc_spawn *s);

/*
 * The file execvp() would run for `name`: name itself when it holds a '/',
 * else the first executable match along $PATH. 0 or -ENOENT.
 */
int xpc_resolve_command(const char *name, char *out, size_t outlen);

/* Abandon a child never released: it exits without exec'ing, and is reaped. */
void xpc_spawn_abort(struct xpc_spawn *s);

#endif /* XPERF_USERSPACE_SPAWN_H */
