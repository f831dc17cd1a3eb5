// SPDX-License-Identifier: MIT
/*
 * sched_floor.bpf.c - programs on the tracepoints xperf's scheduler tier
 * uses (bpf/sched.bpf.c), for sched_floor.sh: "empty" ones, what any
 * program there costs every process on the machine before it does
 * anything (the tracepoint's dispatch into BPF, the call); and "filter"
 * ones, which do what xperf's do for a task it does not trace (the tgid
 * of prev and next, or of the woken task, looked up in traced_flags:
 * common.bpf.h) and nothing else. sched_floor.c loads one set.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "../../bpf/common.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

SEC("tp_btf/sched_switch")
int BPF_PROG(empty_switch)
{
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(empty_wakeup)
{
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(empty_wakeup_new)
{
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(filter_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return xk_traced_tgid(prev->tgid) || xk_traced_tgid(next->tgid);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(filter_wakeup, struct task_struct *p)
{
	return xk_traced_tgid(p->tgid) != NULL;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(filter_wakeup_new, struct task_struct *p)
{
	return xk_traced_tgid(p->tgid) != NULL;
}
