// SPDX-License-Identifier: MIT
/*
 * signal_chain.c - one sigaction per flush signal, the previous one kept to
 * chain to. A default disposition is restored and the signal re-raised, so
 * the exit status the host's parent sees is unchanged.
 */
#include "gpu/signal_chain.h"

#include <signal.h>
#include <stddef.h>

static const int flush_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NSIG_CHAINED (sizeof(flush_signals) / sizeof(flush_signals[0]))

static struct sigaction prev[NSIG_CHAINED];
static void (*flush_fn)(void);
static int (*busy_fn)(void);
static volatile sig_atomic_t installed;

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	for (size_t i = 0; i < NSIG_CHAINED; i++) {
		struct sigaction *p = &prev[i];

		if (flush_signals[i] != sig)
			continue;
		if (!busy_fn || !busy_fn())
			flush_fn();
		if (p->sa_flags & SA_SIGINFO) {
			p->sa_sigaction(sig, info, uctx);
		} else if (p->sa_handler == SIG_DFL) {
			sigaction(sig, p, NULL);
			raise(sig);
		} else if (p->sa_handler != SIG_IGN) {
			p->sa_handler(sig);
		}
	}
}

void gp_signal_chain_install(void (*flush)(void), int (*busy)(void))
{
	struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART};

	if (installed)
		return;
	installed = 1;
	flush_fn = flush;
	busy_fn = busy;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSIG_CHAINED; i++) {
		sigaction(flush_signals[i], NULL, &prev[i]);
		if (prev[i].sa_handler != SIG_IGN) /* keep ignored signals ignored */
			sigaction(flush_signals[i], &sa, NULL);
	}
}
