/* SPDX-License-Identifier: MIT */
/*
 * llm_span.h - one LLM exchange as spans: llm_inference over the whole
 * exchange carrying the OpenTelemetry GenAI attributes, with children
 * prompt_transfer (request written), ttft (request end to first token),
 * decode (first token to last byte) and streaming_gap inside decode for
 * every gap between token events above max(ratio x median gap, min ms)
 * (theory's rules). Fused marks for the TTFT and each gap; waste marks for
 * error answers, truncated output and aborted streams.
 */
#ifndef XPERF_ASSEMBLE_LLM_SPAN_H
#define XPERF_ASSEMBLE_LLM_SPAN_H

#include "assemble/turn.h"

/* Adds the exchange's spans and marks; the llm_inference span id, or -1 on ENOMEM. */
int xt_llm_span(struct tt_turn *d, const struct xt_exchange *e, const struct xt_sched *sched);

#endif /* XPERF_ASSEMBLE_LLM_SPAN_H */
