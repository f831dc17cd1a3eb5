// SPDX-License-Identifier: MIT
/*
 * sched.bpf.c - per-thread on-CPU / run-queue / blocked time of the traced
 * process tree, aggregated in the kernel (the `tstats` map) so it is cheap
 * enough to leave on; optionally one compact XP_EV_SCHED record per state
 * change, so the turn assembler can split a thread's time between spans.
 *
 * State machine per thread (a thread is first UNKNOWN: no time is charged
 * for a state whose start was not seen):
 *   sched_switch, prev:   ONCPU -> RUNQ (preempted or still runnable)
 *                         ONCPU -> BLOCKED (went to sleep)
 *   sched_switch, next:   any   -> ONCPU
 *   sched_wakeup(_new):   BLOCKED/UNKNOWN -> RUNQ
 * The time since last_ts is charged to the state being left. An exiting
 * thread reports its totals (XP_EV_THREAD_EXIT) and leaves the map.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "common.bpf.h"
#include "sched.h"

#define PF_EXITING 0x00000004
#define TASK_RUNNING 0x0000
#define TASK_UNINTERRUPTIBLE 0x0002

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Emit XP_EV_SCHED on every state change of a traced thread. */
const volatile bool sched_events = true;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XP_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct xk_sched_stats);
} tstats SEC(".maps");

/*
 * The stats of thread t if its process is traced; created for a thread
 * that is not exiting (its last switch must not re-create the entry
 * deleted at exit). The filter comes first: a thread of any other process
 * (most calls) costs a load of its tgid and of its traced_flags byte
 * (common.bpf.h). btf: t is a BTF pointer (tp_btf), read directly; a
 * raw_tp's is read with bpf_probe_read_kernel (a helper call).
 */
static __always_inline struct xk_sched_stats *stats_of(struct task_struct *t, bool btf)
{
	struct xk_sched_stats init = {}, *s;
	__u32 tid;

	init.tgid = btf ? t->tgid : BPF_CORE_READ(t, tgid);
	if (!xk_traced_tgid(init.tgid))
		return NULL;
	tid = BPF_CORE_READ(t, pid);
	s = bpf_map_lookup_elem(&tstats, &tid);
	if (s || (BPF_CORE_READ(t, flags) & PF_EXITING))
		return s;
	init.start_ns = xk_start_ns(t);
	if (bpf_map_update_elem(&tstats, &tid, &init, BPF_NOEXIST))
		xk_count_drop(XP_EV_SCHED);
	return bpf_map_lookup_elem(&tstats, &tid);
}

static __always_inline void emit(struct task_struct *t, __u64 now, __u8 prev, __u64 prev_ns,
				 struct xk_sched_stats *s)
{
	struct xk_sched *e;

	if (!sched_events)
		return;
	e = xk_reserve(XP_EV_SCHED, sizeof(*e));
	if (!e)
		return;
	xk_fill_hdr(&e->hdr, XP_EV_SCHED, sizeof(*e), t);
	e->hdr.ts_ns = now;
	e->prev_ns = prev_ns;
	e->prev_state = prev;
	e->state = s->state;
	e->unint = s->unint;
	xk_submit(e);
}

/* Charge the time since last_ts to the state being left, enter `state`. */
static __always_inline void enter(struct task_struct *t, struct xk_sched_stats *s, __u16 state,
				  __u16 unint, __u64 now)
{
	__u64 d = s->state == XP_TS_UNKNOWN ? 0 : now - s->last_ts;
	__u8 prev = s->state;

	if (s->state == XP_TS_ONCPU)
		s->oncpu_ns += d;
	else if (s->state == XP_TS_RUNQ)
		s->runq_ns += d;
	else if (s->state == XP_TS_BLOCKED)
		s->blocked_ns += d;
	if (s->state == XP_TS_BLOCKED && s->unint)
		s->blocked_unint_ns += d;
	s->state = state;
	s->unint = unint;
	s->last_ts = now;
	emit(t, now, prev, d, s);
}

static __always_inline int handle_switch(bool preempt, struct task_struct *prev,
					 struct task_struct *next, unsigned int prev_state, bool btf)
{
	struct xk_sched_stats *s;
	__u64 now = 0;	/* read once a traced task is involved: both see one time */

	s = stats_of(prev, btf);
	if (s) {
		bool runnable = preempt || prev_state == TASK_RUNNING;

		now = bpf_ktime_get_ns();
		if (runnable)
			s->nr_involuntary++;
		else
			s->nr_voluntary++;
		enter(prev, s, runnable ? XP_TS_RUNQ : XP_TS_BLOCKED,
		      !runnable && (prev_state & TASK_UNINTERRUPTIBLE), now);
	}
	s = stats_of(next, btf);
	if (s)
		enter(next, s, XP_TS_ONCPU, 0, now ?: bpf_ktime_get_ns());
	return 0;
}

static __always_inline int handle_wakeup(struct task_struct *p, bool btf)
{
	struct xk_sched_stats *s = stats_of(p, btf);

	if (!s || (s->state != XP_TS_BLOCKED && s->state != XP_TS_UNKNOWN))
		return 0;
	s->nr_wakeups++;
	enter(p, s, XP_TS_RUNQ, 0, bpf_ktime_get_ns());
	return 0;
}

/* The exiting thread is on CPU: charge that time, report, forget it. */
static __always_inline int handle_exit(struct task_struct *t)
{
	__u32 tid = BPF_CORE_READ(t, pid);
	struct xk_sched_stats *s = bpf_map_lookup_elem(&tstats, &tid);
	struct xk_thread_exit *e;
	__u64 now = bpf_ktime_get_ns();

	if (!s)
		return 0;
	if (s->state == XP_TS_ONCPU)
		s->oncpu_ns += now - s->last_ts;
	s->last_ts = now;
	e = xk_reserve(XP_EV_THREAD_EXIT, sizeof(*e));
	if (e) {
		xk_fill_hdr(&e->hdr, XP_EV_THREAD_EXIT, sizeof(*e), t);
		e->hdr.ts_ns = now;
		e->stats = *s;
		xk_submit(e);
	}
	bpf_map_delete_elem(&tstats, &tid);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	return handle_switch(preempt, prev, next, prev_state, true);
}

/*
 * raw_tp fallback (kernels without tp_btf). prev_state became a tracepoint
 * argument in 5.18 (commit fa2c3254d7cf, "sched/tracing: Don't re-read
 * p->state when emitting sched_switch event"), so read it from the task.
 */
struct task_struct___o {
	volatile long state;
} __attribute__((preserve_access_index));

struct task_struct___x {
	unsigned int __state;
} __attribute__((preserve_access_index));

static __always_inline unsigned int task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(struct task_struct___x, __state))
		return BPF_CORE_READ((struct task_struct___x *)t, __state);
	return BPF_CORE_READ((struct task_struct___o *)t, state);
}

SEC("raw_tp/sched_switch")
int BPF_PROG(switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return handle_switch(preempt, prev, next, task_state(prev), false);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(wakeup_btf, struct task_struct *p)
{
	return handle_wakeup(p, true);
}

SEC("raw_tp/sched_wakeup")
int BPF_PROG(wakeup_raw, struct task_struct *p)
{
	return handle_wakeup(p, false);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(wakeup_new_btf, struct task_struct *p)
{
	return handle_wakeup(p, true);
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(wakeup_new_raw, struct task_struct *p)
{
	return handle_wakeup(p, false);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(thread_exit_btf, struct task_struct *p)
{
	return handle_exit(p);
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(thread_exit_raw, struct task_struct *p)
{
	return handle_exit(p);
}
