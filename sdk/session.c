/* SPDX-License-Identifier: MIT */
/*
 * session.c - the SDK's one session: init and shutdown, the lock, the table
 * of open turns, statistics, and writing a finished turn's file.
 *
 * Turns are addressed by handle (their turn index), looked up in a small
 * table, so a stale handle is XP_ENOTURN instead of a dangling pointer. A
 * failing write never stops the agent: it is counted, and the first one of
 * the session is reported on stderr. A forked child starts without a session.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "core/write.h"
#include "lib/atomic_file.h"
#include "lib/grow.h"
#include "sdk/internal.h"

#define DEFAULT_TRACE_DIR ".xperf/traces"

static struct {
	pthread_mutex_t lock;
	int live;
	unsigned gen;
	unsigned flags;
	struct sd_agent agent;
	char session_id[129];
	char dir[PATH_MAX]; /* <trace dir>/<session id> */
	int next_turn;
	struct sd_turn **turns;
	size_t nturns, cap;
	struct xperf_stats stats;
	int reported;
	char reasons[XP_REASONS_MAX][64];
	int nreasons;
} S = { .lock = PTHREAD_MUTEX_INITIALIZER };

void sd_lock(void)
{
	pthread_mutex_lock(&S.lock);
}

void sd_unlock(void)
{
	pthread_mutex_unlock(&S.lock);
}

int sd_live(void)
{
	return __atomic_load_n(&S.live, __ATOMIC_ACQUIRE);
}

unsigned sd_generation(void)
{
	return __atomic_load_n(&S.gen, __ATOMIC_ACQUIRE);
}

unsigned sd_flags(void)
{
	return S.flags;
}

int sd_capture(void)
{
	return (S.flags & XPERF_CAPTURE_CONTENT) != 0;
}

int sd_fail(int err)
{
	__atomic_fetch_add(&S.stats.misuse, 1, __ATOMIC_RELAXED);
	return err;
}

void sd_count_dropped(uint64_t n)
{
	__atomic_fetch_add(&S.stats.dropped_events, n, __ATOMIC_RELAXED);
}

struct sd_turn *sd_turn_get(int handle)
{
	for (size_t i = 0; i < S.nturns; i++)
		if (S.turns[i]->tt->index == handle)
			return S.turns[i];
	return NULL;
}

int sd_turn_add(struct sd_turn *t)
{
	if (xp_grow((void **)&S.turns, &S.cap, S.nturns + 1, sizeof(*S.turns)))
		return XP_ENOMEM;
	t->tt->index = ++S.next_turn;
	S.turns[S.nturns++] = t;
	return S.next_turn;
}

void sd_turn_remove(struct sd_turn *t)
{
	for (size_t i = 0; i < S.nturns; i++)
		if (S.turns[i] == t)
			S.turns[i] = S.turns[--S.nturns];
}

uint8_t sd_reason_intern(const char *why)
{
	uint8_t idx = XP_NO_REASON;

	sd_lock();
	for (int i = 0; i < S.nreasons && idx == XP_NO_REASON; i++)
		if (strncmp(S.reasons[i], why, sizeof(S.reasons[i]) - 1) == 0)
			idx = (uint8_t)i;
	if (idx == XP_NO_REASON && S.nreasons < XP_REASONS_MAX) {
		snprintf(S.reasons[S.nreasons], sizeof(S.reasons[0]), "%s", why);
		idx = (uint8_t)S.nreasons;
		__atomic_store_n(&S.nreasons, S.nreasons + 1, __ATOMIC_RELEASE);
	}
	sd_unlock();
	return idx;
}

const char *sd_reason(uint8_t idx)
{
	/* entries are written before nreasons grows, and never change until the next init */
	if (idx < __atomic_load_n(&S.nreasons, __ATOMIC_ACQUIRE))
		return S.reasons[idx];
	return "read failed at a span boundary";
}

/* [A-Za-z0-9._-]{1,max}: safe as a file or directory name, and schema-valid. */
int sd_name_valid(const char *s, size_t max)
{
	size_t n = 0;

	if (!s)
		return 0;
	for (; s[n]; n++) {
		unsigned char c = (unsigned char)s[n];

		/* no strchr/isalnum: this runs on every xperf_enter, locale-free */
		if (n >= max || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				  (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return n > 0 && strcmp(s, ".") && strcmp(s, "..");
}

/* "20261202T175512-4242-9f3a": sortable by start time, unique per process. */
static void make_session_id(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	uint16_t rnd = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
		rnd = (uint16_t)(ts.tv_nsec ^ getpid());
	snprintf(buf, len, "%04d%02d%02dT%02d%02d%02d-%d-%04x", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)getpid(), rnd);
}

static int set_paths(const struct xperf_options *o)
{
	const char *dir = o && o->trace_dir ? o->trace_dir : getenv("XPERF_TRACE_DIR");
	const char *sid = o && o->session_id ? o->session_id : getenv("XPERF_SESSION_ID");
	char cwd[PATH_MAX] = "";
	int n;

	if (!dir || !*dir)
		dir = DEFAULT_TRACE_DIR;
	if (sid && !sd_name_valid(sid, 128))
		return XP_EINVAL;
	if (sid)
		snprintf(S.session_id, sizeof(S.session_id), "%s", sid);
	else
		make_session_id(S.session_id, sizeof(S.session_id));
	/* Absolute from here on: an agent that changes directory keeps one session dir. */
	if (dir[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		return XP_EINVAL;
	n = snprintf(S.dir, sizeof(S.dir), "%s%s%s/%s", cwd, cwd[0] ? "/" : "", dir, S.session_id);
	return n < 0 || (size_t)n >= sizeof(S.dir) - 32 ? XP_EINVAL : 0;
}

/* Name and model: UTF-8 that fits struct sd_agent whole (never cut mid-character). */
static int agent_text_ok(const char *s, int optional)
{
	if (!s)
		return optional;
	return *s && strlen(s) < sizeof(S.agent.name) && xp_utf8_valid(s);
}

/* At exit(), turns still open are written (complete=false), as by xperf_shutdown. */
static void flush_at_exit(void)
{
	if (sd_live())
		xperf_shutdown();
}

/*
 * fork: the lock is held across it (register_once), so the child gets a
 * consistent session and an unlocked mutex. The child has no session of its
 * own (XP_ENOINIT until it calls xperf_init): writing the parent's turns or
 * its session directory from two processes would overwrite files. Its copies
 * of the parent's open turns are freed, and the generation moves on so that
 * each thread reopens counters that measure the child, not the parent.
 */
static void fork_child(void)
{
	for (size_t i = 0; i < S.nturns; i++)
		sd_turn_free(S.turns[i]);
	free(S.turns);
	S.turns = NULL;
	S.nturns = S.cap = 0;
	__atomic_store_n(&S.live, 0, __ATOMIC_RELEASE);
	__atomic_fetch_add(&S.gen, 1, __ATOMIC_RELEASE);
	sd_unlock();
}

static void register_once(void)
{
	atexit(flush_at_exit);
	pthread_atfork(sd_lock, sd_unlock, fork_child);
}

int xperf_init(const struct xperf_agent_info *agent, const struct xperf_options *opts)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int err;

	if (!agent || !agent_text_ok(agent->name, 0) || !agent_text_ok(agent->model, 1))
		return sd_fail(XP_EINVAL);
	sd_lock();
	if (S.live) {
		sd_unlock();
		return sd_fail(XP_EALREADY);
	}
	err = set_paths(opts);
	if (err) {
		sd_unlock();
		return sd_fail(err);
	}
	sd_agent_collect(&S.agent, agent->name, agent->model);
	S.flags = opts ? opts->flags : 0;
	if (getenv("XPERF_CAPTURE_CONTENT") && strcmp(getenv("XPERF_CAPTURE_CONTENT"), "1") == 0)
		S.flags |= XPERF_CAPTURE_CONTENT;
	memset(&S.stats, 0, sizeof(S.stats));
	S.reported = 0;
	S.nreasons = 0;
	S.next_turn = 0;
	__atomic_store_n(&S.live, 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&S.gen, 1, __ATOMIC_RELEASE);
	sd_unlock();
	pthread_once(&once, register_once);
	return 0;
}

int xperf_shutdown(void)
{
	struct sd_turn **turns;
	size_t n;
	int err = 0;

	sd_lock();
	if (!S.live) {
		sd_unlock();
		return sd_fail(XP_ENOINIT);
	}
	turns = S.turns;
	n = S.nturns;
	S.turns = NULL;
	S.nturns = S.cap = 0;
	sd_unlock();
	for (size_t i = 0; i < n; i++) {
		sd_turn_close(turns[i], sd_now_ns(), 0);
		if (sd_session_write(turns[i]))
			err = XP_EWRITE;
	}
	free(turns);
	sd_probe_release();
	sd_lock();
	__atomic_store_n(&S.live, 0, __ATOMIC_RELEASE);
	sd_unlock();
	return err;
}

/* First failure of the session on stderr; every one counted. */
static void write_failed(const char *path, int err)
{
	int first;

	sd_lock();
	S.stats.write_failures++;
	first = !S.reported;
	S.reported = 1;
	sd_unlock();
	if (first)
		fprintf(stderr, "xperf: cannot write %s: %s (turn dropped; further failures are "
			"counted in xperf_stats, not reported)\n", path, strerror(-err));
}

int sd_session_write(struct sd_turn *t)
{
	char path[PATH_MAX + 32], dir[PATH_MAX], sid[sizeof(S.session_id)];
	struct sd_agent agent;
	struct tt_turn *turn;
	int err;

	sd_lock();
	memcpy(dir, S.dir, sizeof(dir));
	memcpy(sid, S.session_id, sizeof(sid));
	agent = S.agent;
	sd_unlock();
	snprintf(path, sizeof(path), "%s/turn_%03d.json", dir, (int)t->tt->index);
	turn = sd_turn_core(t, sid, &agent);
	sd_turn_free(t);
	err = turn ? tt_turn_write(turn, dir, path, sizeof(path)) : -ENOMEM;
	tt_turn_free(turn);
	if (err) {
		write_failed(path, err);
		return XP_EWRITE;
	}
	__atomic_fetch_add(&S.stats.turns_written, 1, __ATOMIC_RELAXED);
	return 0;
}

int xperf_stats(struct xperf_stats *out)
{
	if (!out)
		return sd_fail(XP_EINVAL);
	sd_lock();
	if (!S.live) {
		sd_unlock();
		return sd_fail(XP_ENOINIT);
	}
	*out = S.stats;
	sd_unlock();
	return 0;
}

int xperf_session_dir(char *buf, size_t len)
{
	size_t n;

	if (!buf)
		return sd_fail(XP_EINVAL);
	sd_lock();
	if (!S.live) {
		sd_unlock();
		return sd_fail(XP_ENOINIT);
	}
	n = strlen(S.dir);
	if (n < len)
		memcpy(buf, S.dir, n + 1);
	sd_unlock();
	return n < len ? (int)n : sd_fail(XP_EINVAL);
}

static const char *const messages[] = {
	[-XP_EINVAL] = "invalid argument",
	[-XP_ENOINIT] = "xperf is not initialized",
	[-XP_EALREADY] = "xperf is already initialized",
	[-XP_ENOTURN] = "no open turn with this handle",
	[-XP_ENOSPAN] = "no span with this id in the turn",
	[-XP_ECLOSED] = "span already left",
	[-XP_ETHREAD] = "span left on another thread than it was entered on",
	[-XP_EORDER] = "a span nested in this one is still open on this thread",
	[-XP_ELIMIT] = "per-turn limit reached: event dropped",
	[-XP_ENOMEM] = "out of memory: event dropped",
	[-XP_EWRITE] = "the turn's trace file could not be written",
	[-XP_EKIND] = "unknown mark kind",
	[-XP_ENOTLLM] = "span was not entered with xperf_enter_llm",
};

const char *xperf_strerror(int err)
{
	if (err == 0)
		return "success";
	if (err < 0 && -err < (int)(sizeof(messages) / sizeof(messages[0])) && messages[-err])
		return messages[-err];
	return "unknown error";
}
