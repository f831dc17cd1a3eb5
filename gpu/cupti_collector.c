// SPDX-License-Identifier: MIT
/*
 * cupti_collector.c - libxperf_cupti.so: CUPTI activity tracing injected
 * into an unmodified CUDA process.
 *
 * Entry points: InitializeInjection (the CUDA driver calls it when
 * CUDA_INJECTION64_PATH names this library) and a constructor (LD_PRELOAD);
 * whichever comes first initialises, once. Order matters: subscribe (this
 * detects another profiler holding CUPTI), register the CLOCK_MONOTONIC
 * timestamp callback, register buffer callbacks, then enable the kinds.
 * Completed buffers are converted and appended to <dir>/gpu-<pid>.xpgpu
 * (gpu_records.h); at most max_buffers are in flight, so memory is bounded.
 * Every failure prints one line to stderr, leaves a notice in the output
 * file, and returns: the host program is never stopped or slowed further.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpu/collector_config.h"
#include "gpu/cupti_convert.h"
#include "gpu/cupti_loader.h"
#include "gpu/gpu_records.h"
#include "gpu/signal_chain.h"

#define XP_EXPORT __attribute__((visibility("default")))
#define ALIGN 8

static struct {
	struct gp_collector_config cfg;
	struct gp_cupti_api api;
	CUpti_SubscriberHandle sub;
	struct gp_gpu_writer out;
	pthread_mutex_t lock; /* the writer: CUPTI's worker thread and flushes share it */
	atomic_uint in_flight;
	atomic_ullong written, dropped, invalid;
	uint32_t version; /* cuptiGetVersion() of the loaded library */
	int active;
} g = { .lock = PTHREAD_MUTEX_INITIALIZER };

static atomic_int init_once, finished;
/* Set while this thread holds g.lock: a signal landing then must not flush. */
static _Thread_local int in_writer;

static void lock(void)
{
	pthread_mutex_lock(&g.lock);
	in_writer = 1;
}

static void unlock(void)
{
	in_writer = 0;
	pthread_mutex_unlock(&g.lock);
}

/* One line to stderr and, with notice and the output file open, a notice frame. */
static __attribute__((format(printf, 2, 3))) void say(int notice, const char *fmt, ...)
{
	char msg[4608];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "xperf-cupti[%d]: %s\n", (int)getpid(), msg);
	if (!notice)
		return;
	lock();
	if (g.out.fd >= 0) {
		gp_gpu_writer_notice(&g.out, msg);
		gp_gpu_writer_flush(&g.out);
	}
	unlock();
}

static uint64_t CUPTIAPI monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*max_records = 0;
	*size = 0;
	*buffer = NULL;
	/*
	 * Over the limit CUPTI drops (and counts) records. Rejecting a buffer can
	 * crash CUPTI before API version 27 (Kineto), so older ones always get one.
	 */
	if (atomic_load(&g.in_flight) >= g.cfg.max_buffers && g.version >= 27)
		return;
	if (posix_memalign((void **)buffer, ALIGN, g.cfg.buffer_bytes)) {
		*buffer = NULL;
		return;
	}
	*size = g.cfg.buffer_bytes;
	atomic_fetch_add(&g.in_flight, 1);
}

static void write_records(uint8_t *buffer, size_t valid)
{
	CUpti_Activity *rec = NULL;
	struct gp_gpu_rec out;

	lock();
	while (g.api.ActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
		switch (gp_cupti_convert(rec, &out)) {
		case XP_CONV_OK:
			if (gp_gpu_writer_add(&g.out, &out))
				atomic_fetch_add(&g.dropped, 1);
			else
				atomic_fetch_add(&g.written, 1);
			break;
		case XP_CONV_INVALID:
			atomic_fetch_add(&g.invalid, 1);
			break;
		case XP_CONV_SKIP:
			break;
		}
	}
	gp_gpu_writer_flush(&g.out);
	unlock();
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
				      size_t valid)
{
	size_t dropped = 0;

	(void)size;
	if (buffer && valid)
		write_records(buffer, valid);
	/* Not under our lock: CUPTI takes its own lock here (Kineto's note). */
	if (g.api.ActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped) {
		atomic_fetch_add(&g.dropped, dropped);
		lock();
		gp_gpu_writer_dropped(&g.out, dropped);
		gp_gpu_writer_flush(&g.out);
		unlock();
	}
	if (buffer) {
		free(buffer);
		atomic_fetch_sub(&g.in_flight, 1);
	}
}

/* The subscriber exists to claim CUPTI (and detect a competitor); no callback is enabled. */
static void CUPTIAPI on_callback(void *ud, CUpti_CallbackDomain d, CUpti_CallbackId id,
				 const void *data)
{
	(void)ud;
	(void)d;
	(void)id;
	(void)data;
}

/* Force-flush, record the totals, close. Safe to call more than once. */
static void finish(void)
{
	unsigned long long lost;

	if (!g.active || atomic_exchange(&finished, 1))
		return;
	g.api.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	lost = atomic_load(&g.dropped) + atomic_load(&g.invalid);
	if (lost || getenv("XPERF_CUPTI_VERBOSE"))
		say(0, "%llu records written to %s/gpu-%d.xpgpu, %llu dropped by CUPTI or the "
		    "writer, %llu without timestamps", atomic_load(&g.written), g.cfg.out_dir,
		    (int)getpid(), atomic_load(&g.dropped), atomic_load(&g.invalid));
	lock();
	if (atomic_load(&g.invalid))
		gp_gpu_writer_dropped(&g.out, atomic_load(&g.invalid));
	gp_gpu_writer_close(&g.out);
	unlock();
}

/* The signal landed while this thread holds the writer lock: no flush. */
static int writer_busy(void)
{
	return in_writer;
}

static const char *env(const char *name)
{
	return getenv(name);
}

static const CUpti_ActivityKind kinds[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
	CUPTI_ACTIVITY_KIND_MEMCPY,
	CUPTI_ACTIVITY_KIND_MEMSET,
	CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
	CUPTI_ACTIVITY_KIND_RUNTIME,
	CUPTI_ACTIVITY_KIND_DRIVER,
	CUPTI_ACTIVITY_KIND_OVERHEAD,
};

/* One line for a CUPTI call that failed; another profiler holding CUPTI gets its own. */
static void cupti_failed(const char *call, CUptiResult rc)
{
	char buf[64];

	if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
		say(1, "CUPTI is held by another profiler (nsys, ncu, Kineto, a sanitizer): GPU "
		    "activity not collected; xperf-bpf's cuda module (uprobes) still sees the host "
		    "side");
	else
		say(1, "%s failed: %s: GPU activity not collected", call,
		    gp_cupti_strerror(&g.api, rc, buf, sizeof(buf)));
}

/* Claim CUPTI and set up clocks and buffers; -1 (reported) when CUPTI is unusable. */
static int claim_cupti(void)
{
	CUptiResult rc = g.api.Subscribe(&g.sub, on_callback, NULL);

	if (rc != CUPTI_SUCCESS) {
		cupti_failed("cuptiSubscribe", rc);
		return -1;
	}
	g.api.GetVersion(&g.version);
	if (!g.api.ActivityRegisterTimestampCallback ||
	    g.api.ActivityRegisterTimestampCallback(monotonic_ns) != CUPTI_SUCCESS)
		say(1, "cannot set CUPTI's clock to CLOCK_MONOTONIC: GPU times are on CUPTI's "
		    "default clock and will not line up with kernel events");
	rc = g.api.ActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (rc != CUPTI_SUCCESS) {
		cupti_failed("cuptiActivityRegisterCallbacks", rc);
		g.api.Unsubscribe(g.sub);
		return -1;
	}
	return 0;
}

/* Enable each kind; a kind CUPTI refuses is reported and the others still run. */
static void enable_kinds(void)
{
	char buf[64];

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		CUptiResult rc = g.api.ActivityEnable(kinds[i]);

		if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
			cupti_failed("cuptiActivityEnable", rc);
			return;
		}
		if (rc == CUPTI_SUCCESS)
			continue;
		say(1, "activity kind %d not enabled: %s", (int)kinds[i],
		    gp_cupti_strerror(&g.api, rc, buf, sizeof(buf)));
	}
	if (g.cfg.flush_ms)
		g.api.ActivityFlushPeriod(g.cfg.flush_ms);
}

/* The settings, read once by whichever entry point runs; -1 (reported) on a bad value. */
static int load_settings(void)
{
	char err[512];

	if (!gp_collector_config_load(&g.cfg, env, err, sizeof(err)))
		return 0;
	say(0, "bad setting %s: collector disabled", err);
	return -1;
}

/* With g.cfg loaded. */
static void start(void)
{
	char err[512];
	int rc;

	g.out.fd = -1;
	if (!g.cfg.enabled)
		return;
	rc = gp_gpu_writer_open(&g.out, g.cfg.out_dir, (int)getpid(), XP_GPU_SRC_CUPTI);
	if (rc) {
		say(0, "cannot write %s: %s: collector disabled", g.cfg.out_dir, strerror(-rc));
		return;
	}
	rc = gp_cupti_load(&g.api, g.cfg.cupti_lib, err, sizeof(err));
	if (rc)
		say(1, "%s: GPU activity not collected", err);
	if (rc || claim_cupti()) {
		gp_gpu_writer_close(&g.out);
		return;
	}
	enable_kinds();
	g.active = 1;
	atexit(finish);
	gp_signal_chain_install(finish, writer_busy);
}

/* Called by the CUDA driver when CUDA_INJECTION64_PATH names this library. */
XP_EXPORT int InitializeInjection(void)
{
	if (!atomic_exchange(&init_once, 1) && !load_settings())
		start();
	return 1;
}

static int mapped(const char *soname)
{
	void *h = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);

	if (h)
		dlclose(h);
	return h != NULL;
}

/*
 * LD_PRELOAD path: start only in processes that already map the CUDA runtime
 * or driver (children such as shells inherit LD_PRELOAD too), unless forced.
 * The settings are read first, so a bad one is reported here too.
 */
__attribute__((constructor)) static void preload_init(void)
{
	const char *inj = getenv("CUDA_INJECTION64_PATH");

	if (inj && strstr(inj, "xperf_cupti"))
		return; /* the driver will call InitializeInjection */
	if (atomic_exchange(&init_once, 1) || load_settings())
		return;
	if (g.cfg.force || mapped("libcudart.so.13") || mapped("libcudart.so.12") ||
	    mapped("libcuda.so.1"))
		start();
}
