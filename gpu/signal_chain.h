/* SPDX-License-Identifier: MIT */
/*
 * signal_chain.h - flush on the signals that end a process, then let the
 * host's own disposition run: its handler is called, a default action is
 * re-raised (the process still dies of the signal), an ignored signal stays
 * ignored. For libraries injected into programs they do not own.
 */
#ifndef XPERF_GPU_SIGNAL_CHAIN_H
#define XPERF_GPU_SIGNAL_CHAIN_H

/*
 * On SIGINT, SIGTERM, SIGHUP and SIGQUIT call flush() first, unless busy()
 * (may be NULL) says the interrupted thread is inside the flush path itself
 * (a lock it holds), then chain. Idempotent per process.
 */
void gp_signal_chain_install(void (*flush)(void), int (*busy)(void));

#endif /* XPERF_GPU_SIGNAL_CHAIN_H */
