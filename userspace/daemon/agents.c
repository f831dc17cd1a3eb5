// SPDX-License-Identifier: MIT
/*
 * agents.c - agents, their sessions and their process trees
 * (agents.h). A process is found by a hash of tgids; each agent's
 * session is the sinks of `record` (sink.h) over its own xpb_run, so its
 * directory holds the same files as a `record` run of that agent.
 */
#include "userspace/daemon/agents.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/dir_lock.h"
#include "userspace/procfs.h"
#include "userspace/run/run.h"

#define BUCKETS 4096

/* capture.json's bounds (sink.h) are indexed by tier as the table is. */
_Static_assert(XPD_CONN_TLS == 0 && XPD_CONN_SOCKET == 1 && XPD_CONN_TIERS == 2, "tiers");
#define TREE_MAX 1024	/* live children read at attach time, per level */

extern const struct xpb_sink xpb_sink_raw;

struct agent {
	struct xpb_run run;		/* first: the sinks get &run, owns() gets it back */
	struct xpb_unwritten unwritten;
	struct xpd_agents *owner;
	struct xpb_sinks *sinks;
	struct xpd_conns *conns;	/* its connections, capped */
	struct xpb_bounds bounds;	/* what capture.json says of the cap */
	char session_id[XPB_SESSION_ID_MAX];
	unsigned int live;		/* processes of the tree alive */
	int lock;
	uint64_t records[XP_EV_TYPE_MAX];
	uint64_t drops_at_start;
	struct agent *next;
};

struct member {
	__u32 tgid;
	struct agent *agent;
	struct member *next;
};

struct xpd_agents {
	struct xpc *c;
	struct xpd_agents_opts o;
	struct xpb_run raw_run;
	void *raw;			/* the raw sink's state, NULL without --raw */
	struct agent *agents;
	struct member *bucket[BUCKETS];
	struct xpd_counters n;
	uint64_t evicted_ended[XPD_CONN_TIERS];	/* by sessions that ended */
	uint64_t procs_evicted_ended;
	uint64_t sched_evicted_ended;
};

static struct member **slot(struct xpd_agents *a, __u32 tgid)
{
	struct member **m = &a->bucket[tgid % BUCKETS];

	while (*m && (*m)->tgid != tgid)
		m = &(*m)->next;
	return m;
}

static struct agent *agent_of(const struct xpd_agents *a, __u32 tgid)
{
	struct member *m = *slot((struct xpd_agents *)a, tgid);

	return m ? m->agent : NULL;
}

static bool owns(const struct xpb_run *run, __u32 tgid)
{
	const struct agent *ag = (const struct agent *)run;

	return agent_of(ag->owner, tgid) == ag;
}

static void join(struct xpd_agents *a, struct agent *ag, __u32 tgid)
{
	struct member **s = slot(a, tgid), *m;

	if (*s)
		return;
	m = calloc(1, sizeof(*m));
	if (!m)
		return;
	m->tgid = tgid;
	m->agent = ag;
	*s = m;
	ag->live++;
}

/* The processes already below tgid when it became traced (xpc_add_pid traced them too). */
static void join_tree(struct xpd_agents *a, struct agent *ag, __u32 tgid)
{
	__u32 kids[TREE_MAX];
	int n;

	join(a, ag, tgid);
	n = xpc_proc_children(tgid, kids, TREE_MAX);
	for (int i = 0; i < n; i++)
		join_tree(a, ag, kids[i]);
}

static uint64_t drops_now(struct xpd_agents *a)
{
	struct xpc_counts k;

	return xpc_counts(a->c, &k) ? 0 : xpc_counts_dropped(&k);
}

/*
 * DIR/<node>/<session>, locked: a session id already used (a restart
 * within the same second) gets a suffix, so nothing written is touched.
 */
static int claim_dir(struct agent *ag, pid_t root, const struct xk_hdr *first)
{
	char base[XPB_SESSION_ID_MAX], path[PATH_MAX], comm[XP_COMM_LEN + 1] = "";
	char *const name[] = { comm, NULL };
	struct stat st;
	pid_t holder;

	/* Named after its exec's comm: a short-lived agent may be gone from /proc. */
	if (first && first->type == XP_EV_EXEC)
		memcpy(comm, ((const struct xk_exec *)first)->comm, XP_COMM_LEN);
	xpb_session_id(root, comm[0] ? name : NULL, base);
	snprintf(ag->session_id, sizeof(ag->session_id), "%s", base);
	for (int k = 2; k < 1000; k++) {
		snprintf(path, sizeof(path), "%s/%s", ag->run.out_dir, ag->session_id);
		if (stat(path, &st)) {
			ag->lock = xp_dir_lock(path, &holder);
			return ag->lock < 0 ? ag->lock : 0;
		}
		snprintf(ag->session_id, sizeof(ag->session_id), "%.*s-%d",
			 XPB_SESSION_ID_MAX - 8, base, k);
	}
	return -EEXIST;
}

static struct agent *agent_new(struct xpd_agents *a, pid_t root, const struct xk_hdr *first)
{
	struct agent *ag = calloc(1, sizeof(*ag));

	if (!ag)
		return NULL;
	ag->owner = a;
	ag->lock = -1;
	ag->run.out_dir = a->o.node_dir;
	ag->run.root = root;
	ag->run.capture_payloads = a->o.capture_payloads;
	ag->run.quiet = true;
	ag->run.owns = owns;
	ag->run.session_id = ag->session_id;
	ag->run.unwritten = &ag->unwritten;
	ag->run.bounds = &ag->bounds;
	ag->bounds.max_connections = a->o.max_connections;
	ag->bounds.max_processes = a->o.max_processes;
	ag->bounds.max_sched_marks = a->o.max_sched_marks;
	if (!(ag->conns = xpd_conns_new(a->o.max_connections)) || claim_dir(ag, root, first) ||
	    !(ag->sinks = xpb_sinks_new()) ||
	    xpb_sinks_begin(ag->sinks, &ag->run)) {
		xpb_sinks_free(ag->sinks);
		if (ag->lock >= 0)
			close(ag->lock);
		xpd_conns_free(ag->conns);
		free(ag);
		return NULL;
	}
	ag->drops_at_start = drops_now(a);
	return ag;
}

/* A close record of the connection table (an eviction, an exit): the session's only. */
static int deliver_close(void *ctx, const struct xk_hdr *rec)
{
	return xpb_sinks_event(((struct agent *)ctx)->sinks, rec);
}

static int deliver(struct xpd_agents *a, struct agent *ag, const struct xk_hdr *rec)
{
	int err = xpd_conns_record(ag->conns, rec, deliver_close, ag);

	if (a->raw)
		xpb_sink_raw.on_event(a->raw, rec);
	ag->records[rec->type]++;
	a->n.records_routed++;
	return xpb_sinks_event(ag->sinks, rec) ?: err;
}

/* Traced by the kernel already: at its exec (discover_comm) or at a send naming a host or path. */
static bool in_kernel(const struct xk_hdr *first)
{
	if (first && first->type == XP_EV_SOCK_DISCOVER)
		return true;
	return first && first->type == XP_EV_EXEC &&
	       ((const struct xk_exec *)first)->flags & XP_EXEC_DISCOVERED;
}

int xpd_agents_add(struct xpd_agents *a, pid_t tgid, const struct xk_hdr *first)
{
	struct agent *ag;
	int err;

	if (agent_of(a, tgid))
		return -EEXIST;
	if (a->n.agents_active >= a->o.max_agents) {
		a->n.agents_refused++;
		if (in_kernel(first))	/* traced by the kernel at its exec: no more */
			xpc_untrace(a->c, tgid);
		return -EUSERS;
	}
	/* Traced by the kernel already (in_kernel), else now. */
	err = in_kernel(first) ? 0 : xpc_add_pid(a->c, tgid);
	if (err) {
		a->n.agents_missed += err == -ESRCH;
		return err;
	}
	/*
	 * Traced at a send: its children of before and its TLS probes now
	 * (exec-time ones get theirs from the exec record). Gone already is
	 * no loss: what it did since the send is in the ring.
	 */
	if (first && first->type == XP_EV_SOCK_DISCOVER)
		xpc_add_pid(a->c, tgid);
	ag = agent_new(a, tgid, first);
	if (!ag)
		return -ENOMEM;
	ag->next = a->agents;
	a->agents = ag;
	join_tree(a, ag, tgid);
	a->n.agents_traced++;
	a->n.agents_active++;
	if (!a->o.quiet)
		fprintf(stderr, "xperf-bpf daemon: tracing pid %d: %s/%s\n", (int)tgid,
			a->o.node_dir, ag->session_id);
	return first ? deliver(a, ag, first) : 0;
}

static int session_end(struct xpd_agents *a, struct agent *ag)
{
	struct xpc_counts k = { 0 };
	struct xpd_conn_counts cc;
	uint64_t drops = drops_now(a);
	int err;

	xpd_conns_counts(ag->conns, &cc);
	for (int t = 0; t < XPD_CONN_TIERS; t++) {
		ag->bounds.peak[t] = cc.peak[t];
		ag->bounds.evicted[t] = cc.evicted[t];
		a->evicted_ended[t] += cc.evicted[t];
	}

	memcpy(k.records, ag->records, sizeof(k.records));
	/* A lost record is anyone's: the session says what was lost while it ran. */
	k.drops[XP_EV_NONE] = drops - ag->drops_at_start;
	err = xpb_sinks_end(ag->sinks, a->c, &k);
	a->procs_evicted_ended += ag->bounds.processes_evicted;
	a->sched_evicted_ended += ag->bounds.sched_marks_evicted;
	if (ag->lock >= 0)
		close(ag->lock);
	a->n.sessions_ended++;
	a->n.agents_active--;
	if (!a->o.quiet)
		fprintf(stderr, "xperf-bpf daemon: session %s ended\n", ag->session_id);
	xpd_conns_free(ag->conns);
	free(ag);
	return err;
}

static void unlink_agent(struct xpd_agents *a, struct agent *ag)
{
	struct agent **p = &a->agents;

	while (*p && *p != ag)
		p = &(*p)->next;
	if (*p)
		*p = ag->next;
}

/* tgid left its tree; the tree's last process ends the session. */
static int leave(struct xpd_agents *a, __u32 tgid)
{
	struct member **s = slot(a, tgid), *m = *s;
	struct agent *ag;

	if (!m)
		return 0;
	ag = m->agent;
	*s = m->next;
	free(m);
	if (--ag->live)
		return 0;
	/* Its exit record may come before the kernel shows it a zombie in /proc. */
	ag->run.exited = true;
	unlink_agent(a, ag);
	return session_end(a, ag);
}

int xpd_agents_route(struct xpd_agents *a, const struct xk_hdr *rec)
{
	struct agent *ag = agent_of(a, rec->tgid);
	int err;

	if (!ag) {
		/* In the dump too: what reached the ring is all there, owned or not. */
		if (a->raw)
			xpb_sink_raw.on_event(a->raw, rec);
		return 0;
	}
	if (rec->type == XP_EV_FORK && !(((const struct xk_fork *)rec)->flags & XP_FORK_THREAD))
		join(a, ag, ((const struct xk_fork *)rec)->child_tgid);
	err = deliver(a, ag, rec);
	if (rec->type == XP_EV_EXIT)
		err = leave(a, rec->tgid) ?: err;
	return err;
}

void xpd_agents_sweep(struct xpd_agents *a)
{
	for (unsigned int b = 0; b < BUCKETS; b++) {
		struct member *m = a->bucket[b], *next;

		for (; m; m = next) {
			next = m->next;
			if (kill((pid_t)m->tgid, 0) && errno == ESRCH)
				leave(a, m->tgid);
		}
	}
}

const struct xpd_counters *xpd_agents_counters(struct xpd_agents *a)
{
	struct xpd_conn_counts cc;

	a->n.connections_open = 0;
	memcpy(a->n.connections_evicted, a->evicted_ended, sizeof(a->evicted_ended));
	a->n.processes_evicted = a->procs_evicted_ended;
	a->n.sched_marks_evicted = a->sched_evicted_ended;
	for (const struct agent *ag = a->agents; ag; ag = ag->next) {
		a->n.processes_evicted += ag->bounds.processes_evicted;
		a->n.sched_marks_evicted += ag->bounds.sched_marks_evicted;
		xpd_conns_counts(ag->conns, &cc);
		for (int t = 0; t < XPD_CONN_TIERS; t++) {
			a->n.connections_open += cc.open[t];
			a->n.connections_evicted[t] += cc.evicted[t];
		}
	}
	return &a->n;
}

struct xpd_agents *xpd_agents_new(struct xpc *c, const struct xpd_agents_opts *o)
{
	struct xpd_agents *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->c = c;
	a->o = *o;
	a->raw_run.raw_path = o->raw_path;
	if (o->raw_path && xpb_sink_raw.begin(&a->raw_run, &a->raw)) {
		free(a);
		return NULL;
	}
	return a;
}

int xpd_agents_free(struct xpd_agents *a)
{
	struct xpc_counts k;
	int err = 0;

	if (!a)
		return 0;
	while (a->agents) {
		struct agent *ag = a->agents;

		a->agents = ag->next;
		err = session_end(a, ag) ?: err;
	}
	for (unsigned int b = 0; b < BUCKETS; b++)
		while (a->bucket[b]) {
			struct member *m = a->bucket[b];

			a->bucket[b] = m->next;
			free(m);
		}
	if (a->raw) {
		xpc_counts(a->c, &k);	/* all 0 when unread */
		err = xpb_sink_raw.end(a->raw, a->c, &k) ?: err;
	}
	free(a);
	return err;
}
