// SPDX-License-Identifier: MIT
/*
 * signal_chain_test.c - the collector's flush-on-signal chain with every
 * kind of previous disposition: a plain handler and an SA_SIGINFO handler
 * still run after the flush, an ignored signal stays ignored, a default
 * action still kills the process with that signal (after the flush), and
 * no flush happens while the flush path is busy.
 */
#include "gpu/signal_chain.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/test_check.h"

static volatile sig_atomic_t flushes, hups, ints, int_info_ok, busy_now;
static int flush_pipe = -1;

static void flush(void)
{
	flushes++;
	if (flush_pipe >= 0 && write(flush_pipe, "F", 1) != 1)
		_exit(3);
}

static int busy(void)
{
	return busy_now;
}

static void on_hup(int sig)
{
	hups += sig == SIGHUP;
}

static void on_int(int sig, siginfo_t *info, void *uctx)
{
	(void)uctx;
	ints++;
	int_info_ok = sig == SIGINT && info && info->si_signo == SIGINT;
}

static void default_action_still_kills(void)
{
	int fd[2], status = 0;
	char c = 0;
	pid_t pid;

	CHECK(pipe(fd) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		flush_pipe = fd[1];
		raise(SIGTERM);
		_exit(0); /* not reached when SIGTERM's default action ran */
	}
	close(fd[1]);
	CHECK(waitpid(pid, &status, 0) == pid, "wait");
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "child status %#x", status);
	CHECK(read(fd[0], &c, 1) == 1 && c == 'F', "flush ran before the default action");
	close(fd[0]);
}

int main(void)
{
	struct sigaction hup = {.sa_handler = on_hup},
			 sint = {.sa_sigaction = on_int, .sa_flags = SA_SIGINFO};
	struct sigaction ign = {.sa_handler = SIG_IGN}, dfl = {.sa_handler = SIG_DFL};

	sigaction(SIGHUP, &hup, NULL);
	sigaction(SIGINT, &sint, NULL);
	sigaction(SIGQUIT, &ign, NULL);
	sigaction(SIGTERM, &dfl, NULL);
	gp_signal_chain_install(flush, busy);
	gp_signal_chain_install(flush, busy); /* idempotent: no double flush */

	raise(SIGHUP);
	CHECK(flushes == 1 && hups == 1, "plain handler: flushes %d hups %d", flushes, hups);
	raise(SIGINT);
	CHECK(flushes == 2 && ints == 1 && int_info_ok, "siginfo handler: flushes %d", flushes);
	raise(SIGQUIT);
	CHECK(flushes == 2, "ignored signal: no flush, process alive");
	busy_now = 1;
	raise(SIGHUP);
	CHECK(flushes == 2 && hups == 2, "busy: no flush, handler still runs");
	busy_now = 0;
	default_action_still_kills();
	return test_failures != 0;
}
