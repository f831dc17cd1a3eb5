// SPDX-License-Identifier: MIT
/*
 * flood.bpf.c - a synthetic producer for the consumer benchmark: each run
 * (BPF_PROG_TEST_RUN from flood.c) writes `batch` scheduler records into a
 * running xperf-bpf's ring, through the same reserve/submit path and wakeup
 * rule as the real probes (common.bpf.h), drops counted in its `drops`.
 * The pingpong workload tops out near 340k records/s on a 2-core VM; this
 * offers millions, so the consumer is what is measured.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "../../bpf/common.bpf.h"
#include "../../bpf/sched.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 batch = 256;
__u64 produced, lost;

/* Each record is a copy of one filled per run: the producer is kept cheap. */
static long one(__u32 i, struct xk_sched *tmpl)
{
	struct xk_sched *e = xk_reserve(XP_EV_SCHED, sizeof(*e));

	if (!e) {
		lost++;
		return 0;
	}
	*e = *tmpl;
	e->prev_ns = i;
	xk_submit(e);
	produced++;
	return 0;
}

SEC("raw_tp")
int flood(void *ctx)
{
	struct xk_sched tmpl = { .prev_state = XP_TS_ONCPU, .state = XP_TS_RUNQ };

	xk_fill_hdr(&tmpl.hdr, XP_EV_SCHED, sizeof(tmpl), bpf_get_current_task_btf());
	bpf_loop(batch, one, &tmpl, 0);
	return 0;
}
