/* SPDX-License-Identifier: MIT */
/*
 * theory_data.c - the tables of the Top-down model: domains, categories, the
 * twelve L2 subclasses, the L3 bottleneck points, the L4 counter root causes,
 * the stage map and the global rules. Pure data; theory/README.md explains
 * every table and formula, and theory_test.c checks their invariants.
 */
#include "theory/theory.h"

#include "lib/counters.h"

#define NS_PER_S 1e9
#define REF_DECODE_TPS 50.0    /* tokens/s a healthy hosted model streams */
#define REF_PREFILL_TPS 4000.0 /* input tokens/s of prefill on a serving GPU */

#define ABOVE XP_FIRE_ABOVE
#define BELOW XP_FIRE_BELOW

const char *const th_grade_names[XP_GRADE_COUNT] = { "A", "B", "C" };

const char *const th_grade_meanings[XP_GRADE_COUNT] = {
	"measured directly (a timestamp, a counter, an attribute the writer recorded)",
	"derived from measured values by a fixed formula (ratios, reference rates)",
	"needs judgement; folded into Processing when the user filters grades to A,B",
};

const struct th_domain_info th_domains[XP_DOMAIN_COUNT] = {
	{ XP_DOMAIN_COMPUTE, "compute", "Compute domain",
	  "CPU work of the agent process: prompt assembly, response parsing, tools, bookkeeping.",
	  XP_RULE_CPU_RATIO },
	{ XP_DOMAIN_INTELLIGENT, "intelligent", "Intelligent domain",
	  "Model inference: on a local GPU (kernels, copies) or at a remote provider.",
	  XP_RULE_NAME_WAIT },
	{ XP_DOMAIN_FUSED, "fused", "Fused domain",
	  "The thin interface where data crosses between CPU and model: request upload, time to "
	  "first token, streaming gaps, response download.",
	  XP_RULE_SUPPLY_LIST },
};

const struct th_category_info th_categories[XP_CAT_COUNT] = {
	{ XP_CAT_SUPPLY, "supply", "Supply Bound", "Waiting for data or a resource.",
	  "compute: whole span when on_cpu/dur < 0.3, else its off-CPU part (dur - on_cpu); "
	  "intelligent: stages named *wait* or flagged supply; fused: ttft, streaming_gap, "
	  "prompt_transfer, rate_limit_wait, plus the TTFT carved from an intelligent span" },
	{ XP_CAT_PROCESSING, "processing", "Processing Bound",
	  "Working, but slower than the reference rate.",
	  "P - effective, where P = dur - waste - supply" },
	{ XP_CAT_WASTE, "waste", "Waste Bound", "Work whose result was thrown away.",
	  "whole duration of a span a waste mark points at, and of its descendants "
	  "(highest priority)" },
	{ XP_CAT_EFFECTIVE, "effective", "Effective Work",
	  "Work that produced the expected result.",
	  "productive stage with a successful outcome: min(P, units(work_attr) x ref_ns_per_unit); "
	  "all of P when the stage has no work attribute" },
};

const struct th_l2 th_l2_table[] = {
	{ "compute.supply", XP_DOMAIN_COMPUTE, XP_CAT_SUPPLY, "Compute waiting",
	  "Agent threads off-CPU: blocked on tool I/O, sleeping, or runnable but not running.",
	  "sched.blocked_ns and sched.runq_ns of compute spans (sched_switch), task-clock" },
	{ "compute.processing", XP_DOMAIN_COMPUTE, XP_CAT_PROCESSING, "Compute too slow",
	  "CPU work beyond its reference budget: slow prompt assembly, parsing, tools, overhead.",
	  "on-CPU time of compute spans minus their effective part" },
	{ "compute.waste", XP_DOMAIN_COMPUTE, XP_CAT_WASTE, "Compute thrown away",
	  "CPU work whose result was discarded: failed or repeated tool calls.",
	  "duration of compute spans referenced by waste marks" },
	{ "compute.effective", XP_DOMAIN_COMPUTE, XP_CAT_EFFECTIVE, "Necessary compute",
	  "Prompt assembly within budget, successful tool execution, response parsing within "
	  "budget.",
	  "on-CPU time of successful productive compute spans, capped by the stage's budget" },
	{ "intelligent.supply", XP_DOMAIN_INTELLIGENT, XP_CAT_SUPPLY, "Model starved",
	  "The model side waits: request queued in a serving engine, GPU idle for lack of work.",
	  "queue_wait spans, GPU idle gaps and launch overhead from CUPTI activity records" },
	{ "intelligent.processing", XP_DOMAIN_INTELLIGENT, XP_CAT_PROCESSING, "Model too slow",
	  "Inference slower than the reference: slow decode, long prefill, GPU copies and syncs.",
	  "intelligent span time minus effective time; token counts from GenAI attributes" },
	{ "intelligent.waste", XP_DOMAIN_INTELLIGENT, XP_CAT_WASTE, "Inference thrown away",
	  "Model calls whose output was discarded: errors, retries, truncation, context overflow.",
	  "duration of intelligent spans referenced by waste marks" },
	{ "intelligent.effective", XP_DOMAIN_INTELLIGENT, XP_CAT_EFFECTIVE, "Useful inference",
	  "Tokens prefilled and decoded at the reference rate for a successful response; kernels.",
	  "units(tokens) x reference ns per token, capped by the span's processing time" },
	{ "fused.supply", XP_DOMAIN_FUSED, XP_CAT_SUPPLY, "Waiting at the interface",
	  "Time to first token, rate limits, streaming stalls, request upload.",
	  "ttft/streaming_gap/prompt_transfer spans and marks (SSL_write/SSL_read times)" },
	{ "fused.processing", XP_DOMAIN_FUSED, XP_CAT_PROCESSING, "Slow transfer",
	  "Data crossing slower than the reference: response download, connection setup.",
	  "response_transfer and connection_setup spans minus their effective part" },
	{ "fused.waste", XP_DOMAIN_FUSED, XP_CAT_WASTE, "Transfer thrown away",
	  "Data that crossed for nothing: aborted streams, re-sent uncached prefixes.",
	  "fused spans referenced by waste marks; cache_read vs input tokens" },
	{ "fused.effective", XP_DOMAIN_FUSED, XP_CAT_EFFECTIVE, "Useful delivery",
	  "Response bytes delivered at the reference bandwidth.",
	  "http.response.body.size x reference ns per byte, capped by the span's time" },
};
const size_t th_l2_count = sizeof(th_l2_table) / sizeof(th_l2_table[0]);

const struct th_l3 th_l3_table[] = {
	/* compute.supply */
	{ "compute.supply.tool_io_blocked", "compute.supply", XP_GRADE_A, "Tool blocked on I/O",
	  "tool off-CPU blocked time / turn time", "ratio", 0.15, ABOVE,
	  "Tools wait on disk or network: run independent tool calls concurrently, cache results "
	  "of read-only tools (file reads, searches), set timeouts on network tools." },
	{ "compute.supply.runqueue_delay", "compute.supply", XP_GRADE_A, "Run-queue delay",
	  "sched.runq_ns / span duration", "ratio", 0.10, ABOVE,
	  "Threads are runnable but not running: the CPUs are oversubscribed. Limit parallel tool "
	  "processes to the core count, raise the agent's cpu.weight, move batch jobs elsewhere." },
	{ "compute.supply.blocked_wait", "compute.supply", XP_GRADE_B, "Agent blocked",
	  "agent off-CPU time outside tools and model calls / turn time", "ratio", 0.15, ABOVE,
	  "The agent sleeps with nothing in flight: look for sleeps, lock contention and polling "
	  "loops in the agent loop; wait on events instead of polling." },
	/* compute.processing */
	{ "compute.processing.prompt_assembly", "compute.processing", XP_GRADE_A,
	  "Slow prompt assembly", "on-CPU ms per 1k input tokens", "ms/ktok", 1.0, ABOVE,
	  "Build the stable prefix (system prompt, tool definitions) once and reuse it; append new "
	  "messages instead of re-rendering the history; do not re-tokenize unchanged text." },
	{ "compute.processing.response_parse", "compute.processing", XP_GRADE_A,
	  "Slow response parsing", "on-CPU ms per 1k output tokens", "ms/ktok", 2.0, ABOVE,
	  "Parse the stream incrementally (one pass per delta) instead of re-parsing the "
	  "accumulated text; parse tool-call arguments with a streaming JSON parser." },
	{ "compute.processing.tool_cpu", "compute.processing", XP_GRADE_A, "CPU-heavy tools",
	  "tool on-CPU time beyond the effective part / turn time", "ratio", 0.20, ABOVE,
	  "Tools burn CPU: check L4 (IPC, cache misses); narrow searches (path filters, ripgrep), "
	  "build incrementally, cache expensive results across turns." },
	{ "compute.processing.orchestration", "compute.processing", XP_GRADE_B,
	  "Agent loop overhead", "orchestration on-CPU time / turn time", "ratio", 0.10, ABOVE,
	  "Profile the agent loop (perf record, L4); do not rebuild clients, schemas and tool "
	  "registries every turn." },
	{ "compute.processing.context_compress", "compute.processing", XP_GRADE_A,
	  "Context compression", "context_compress time / turn time", "ratio", 0.05, ABOVE,
	  "Compress on a token budget instead of every turn, summarize incrementally, cache "
	  "summaries of unchanged history." },
	{ "compute.processing.state_serialize", "compute.processing", XP_GRADE_A,
	  "State serialization", "state_serialize time / turn time", "ratio", 0.05, ABOVE,
	  "Append state changes to a log instead of rewriting the whole session file, and write "
	  "it off the critical path." },
	{ "compute.processing.memory_ops", "compute.processing", XP_GRADE_A, "Memory operations",
	  "memory_ops time / turn time", "ratio", 0.05, ABOVE,
	  "Memory-store lookups (vector search, embeddings) are on the critical path: batch them, "
	  "cache hot entries, prefetch while the model generates." },
	{ "compute.processing.custom_stage", "compute.processing", XP_GRADE_C,
	  "Unclassified stage", "custom-stage time / turn time", "ratio", 0.10, ABOVE,
	  "Time in stages outside the stage map: name them with a known stage (xperf theory) so "
	  "they can be classified." },
	/* compute.waste */
	{ "compute.waste.failed_tool_call", "compute.waste", XP_GRADE_A, "Failed tool calls",
	  "failed tool calls (non-zero exit, tool error)", "count", 0, ABOVE,
	  "Check arguments before running (paths exist, command installed), describe the tool's "
	  "usage in its definition, return the error text so the next call is right." },
	{ "compute.waste.repeated_tool_call", "compute.waste", XP_GRADE_A, "Repeated tool calls",
	  "tool calls repeating an earlier command line in the session", "count", 0, ABOVE,
	  "Cache idempotent tool results keyed by command line and working-tree state, and tell "
	  "the model that the earlier result still holds." },
	/* compute.effective */
	{ "compute.effective.prompt_assembly", "compute.effective", XP_GRADE_B,
	  "Necessary prompt assembly", "effective / prompt_assembly time", "ratio", 0.5, BELOW,
	  "Less than half of prompt assembly was necessary work (1 ms CPU per 1k tokens): see "
	  "compute.processing.prompt_assembly." },
	{ "compute.effective.tool_execution", "compute.effective", XP_GRADE_A,
	  "Successful tool execution", "effective / tool span time", "ratio", 0.5, BELOW,
	  "Less than half of tool time was successful on-CPU work: see "
	  "compute.supply.tool_io_blocked and compute.waste.*." },
	{ "compute.effective.response_parse", "compute.effective", XP_GRADE_B,
	  "Necessary response parsing", "effective / response_parse time", "ratio", 0.5, BELOW,
	  "Less than half of parsing was necessary work (2 ms CPU per 1k tokens): see "
	  "compute.processing.response_parse." },
	/* intelligent.supply */
	{ "intelligent.supply.gpu_host_wait", "intelligent.supply", XP_GRADE_B,
	  "GPU idle, host late", "GPU idle gaps / GPU phase time", "ratio", 0.20, ABOVE,
	  "The GPU waits for the host: overlap host and device work (pinned memory, async copies), "
	  "capture decode steps in CUDA graphs, move tokenization off the critical path." },
	{ "intelligent.supply.gpu_launch_overhead", "intelligent.supply", XP_GRADE_A,
	  "GPU launch overhead", "kernel launch API time / kernel time", "ratio", 0.20, ABOVE,
	  "Kernels are too small for their launch cost: use CUDA graphs, fuse small kernels "
	  "(torch.compile), raise the batch size." },
	{ "intelligent.supply.queue_wait", "intelligent.supply", XP_GRADE_A,
	  "Serving queue wait", "queue wait per request", "ms", 500, ABOVE,
	  "Requests queue in the inference server: add replicas, enable continuous batching, or "
	  "cap the concurrency of background agents." },
	/* intelligent.processing */
	{ "intelligent.processing.slow_decode", "intelligent.processing", XP_GRADE_A,
	  "Slow decode", "output tokens / decode seconds", "tokens/s", 30, BELOW,
	  "Use a smaller or faster model for simple steps, speculative decoding or quantization "
	  "when self-hosting, and ask for shorter outputs (tight max_tokens, terse formats)." },
	{ "intelligent.processing.long_prefill", "intelligent.processing", XP_GRADE_A,
	  "Long prefill", "input tokens per request", "tokens", 32000, ABOVE,
	  "Enable prompt caching (cache_control) for the stable prefix; trim tool outputs and old "
	  "turns; retrieve only the relevant files." },
	{ "intelligent.processing.context_growth", "intelligent.processing", XP_GRADE_B,
	  "Context growth", "input tokens / previous turn's input tokens - 1", "ratio", 0.25, ABOVE,
	  "Input grows fast turn over turn: drop or summarize stale tool outputs, keep large files "
	  "out of the history (refer to them by path)." },
	{ "intelligent.processing.gpu_kernel", "intelligent.processing", XP_GRADE_B,
	  "GPU kernel compute", "kernel time / GPU phase time", "ratio", 0.90, ABOVE,
	  "The GPU is compute-bound: quantize (FP8/INT4), use fused attention kernels, or a "
	  "smaller model; start from the top kernels by time." },
	{ "intelligent.processing.gpu_memcpy", "intelligent.processing", XP_GRADE_A, "GPU copies",
	  "memcpy + memset time / GPU busy time", "ratio", 0.10, ABOVE,
	  "Keep weights and KV cache resident, use pinned memory and cudaMemcpyAsync on a separate "
	  "stream, avoid a host round trip per token." },
	{ "intelligent.processing.gpu_sync", "intelligent.processing", XP_GRADE_A,
	  "Host-device synchronization", "synchronization time / GPU phase time", "ratio", 0.10,
	  ABOVE,
	  "Remove syncs from the decode loop (.item(), .cpu(), cudaDeviceSynchronize) and read "
	  "results asynchronously." },
	{ "intelligent.processing.sampling", "intelligent.processing", XP_GRADE_B, "Slow sampling",
	  "sampling time / decode time", "ratio", 0.10, ABOVE,
	  "Run top-k/top-p on the GPU; do not copy full logits to the host every step." },
	/* intelligent.waste */
	{ "intelligent.waste.retry", "intelligent.waste", XP_GRADE_A, "Retried LLM calls",
	  "LLM calls repeated after an error or timeout", "count", 0, ABOVE,
	  "Honor retry-after with jittered backoff, fix the cause (timeouts too short, invalid "
	  "requests), do not resend after a client-side cancel." },
	{ "intelligent.waste.llm_error", "intelligent.waste", XP_GRADE_A, "LLM errors",
	  "responses with HTTP status >= 400 or an error event", "count", 0, ABOVE,
	  "Validate requests (model name, tool schemas), watch quotas, and fail fast on "
	  "non-retryable 4xx." },
	{ "intelligent.waste.truncated_output", "intelligent.waste", XP_GRADE_A, "Truncated output",
	  "responses with finish reason length/max_tokens", "count", 0, ABOVE,
	  "Output hit max_tokens and was cut: raise max_tokens for this step, ask for shorter "
	  "output, or continue from the cut instead of regenerating." },
	{ "intelligent.waste.context_overflow", "intelligent.waste", XP_GRADE_A,
	  "Context overflow", "requests rejected for exceeding the context window", "count", 0,
	  ABOVE,
	  "Count tokens before sending and compress or drop old tool outputs when near the model's "
	  "context window." },
	/* intelligent.effective */
	{ "intelligent.effective.decode", "intelligent.effective", XP_GRADE_A, "Successful decode",
	  "effective / decode time (50 tokens/s reference)", "ratio", 0.5, BELOW,
	  "Less than half of decode time ran at the reference rate: see "
	  "intelligent.processing.slow_decode." },
	{ "intelligent.effective.prefill", "intelligent.effective", XP_GRADE_B, "Necessary prefill",
	  "effective / prefill time (4000 tokens/s reference)", "ratio", 0.5, BELOW,
	  "Less than half of prefill time ran at the reference rate: see "
	  "intelligent.processing.long_prefill." },
	{ "intelligent.effective.gpu_kernel", "intelligent.effective", XP_GRADE_B,
	  "Useful GPU kernels", "kernel time of successful inference / GPU phase time", "ratio",
	  0.5, BELOW, "Less than half of the GPU phase ran useful kernels: see "
	  "intelligent.supply.gpu_host_wait and intelligent.supply.gpu_launch_overhead." },
	/* fused.supply */
	{ "fused.supply.ttft", "fused.supply", XP_GRADE_A, "Time to first token",
	  "request sent to first response token", "ms", 2000, ABOVE,
	  "Enable prompt caching (cache_control) for the stable system prompt and tool definitions "
	  "(TTFT grows with uncached input tokens); keep the connection warm; use a near region." },
	{ "fused.supply.rate_limit", "fused.supply", XP_GRADE_A, "Rate limits and provider queue",
	  "time waiting after HTTP 429/529 or in the provider's queue", "ms", 0, ABOVE,
	  "Pace requests with a client-side token bucket, ask for a higher tier, use prompt "
	  "caching (cached tokens count less against input limits), batch work." },
	{ "fused.supply.streaming_gap", "fused.supply", XP_GRADE_A, "Streaming stalls",
	  "stall time (gaps > 2x median and >= 50 ms) / stream time", "ratio", 0.10, ABOVE,
	  "The token stream stalls: check the network path (proxies buffering SSE, Wi-Fi), disable "
	  "proxy response buffering, compare with provider load." },
	{ "fused.supply.request_upload", "fused.supply", XP_GRADE_A, "Request upload",
	  "first to last request byte written (prompt_transfer)", "ms", 200, ABOVE,
	  "Send less (prompt caching, trimmed history), compress the request where the provider "
	  "accepts it, reuse the TLS connection." },
	/* fused.processing */
	{ "fused.processing.response_transfer", "fused.processing", XP_GRADE_A,
	  "Slow response download", "response_transfer time beyond the effective part", "ms", 100,
	  ABOVE, "Stream the response (stream=true) instead of waiting for the whole body, and "
	  "read with large buffers." },
	{ "fused.processing.connection_setup", "fused.processing", XP_GRADE_B, "Connection setup",
	  "TCP + TLS setup time per LLM request", "ms", 50, ABOVE,
	  "Each request opens a new connection: reuse one HTTP client (keep-alive, HTTP/2) for all "
	  "calls." },
	/* fused.waste */
	{ "fused.waste.aborted_stream", "fused.waste", XP_GRADE_A, "Aborted streams",
	  "streams ended before their final event", "count", 0, ABOVE,
	  "Raise read timeouts for long generations, and resume from the last event instead of "
	  "restarting the request." },
	{ "fused.waste.uncached_prefix", "fused.waste", XP_GRADE_B, "Re-sent uncached prefix",
	  "1 - cache_read input tokens / previous turn's input tokens", "ratio", 0.5, ABOVE,
	  "The same prefix is re-sent and re-processed every turn: mark it cacheable "
	  "(cache_control, prompt_cache_key) so that the provider reuses it." },
	/* fused.effective */
	{ "fused.effective.response_delivery", "fused.effective", XP_GRADE_B,
	  "Useful response delivery", "effective / response_transfer time", "ratio", 0.5, BELOW,
	  "Less than half of the response download ran at the reference bandwidth: see "
	  "fused.processing.response_transfer." },
};
const size_t th_l3_count = sizeof(th_l3_table) / sizeof(th_l3_table[0]);

const struct th_l4 th_l4_table[] = {
	{ "ipc_low", "Low IPC", "instructions / cycles", "ratio", 1.0, BELOW, "instructions,cycles",
	  XP_COUNTER_HW,
	  "Few instructions retire per cycle: the core stalls on memory or branches.",
	  "Read the cache and branch rows; profile hot functions (perf record), cut pointer "
	  "chasing." },
	{ "l1d_mpki", "L1D misses", "1000 * l1d_misses / instructions", "MPKI", 20, ABOVE,
	  "l1d_misses,instructions", XP_COUNTER_HW,
	  "The working set does not fit the L1 data cache.",
	  "Improve locality: arrays instead of linked structures, smaller structs, blocked "
	  "loops." },
	{ "llc_mpki", "LLC misses", "1000 * llc_misses / instructions", "MPKI", 2.0, ABOVE,
	  "llc_misses,instructions", XP_COUNTER_HW, "Data comes from DRAM.",
	  "Shrink the working set: stream big files, parse large JSON once and reuse it." },
	{ "l1d_miss_rate", "L1D miss rate", "l1d_misses / l1d_loads", "ratio", 0.10, ABOVE,
	  "l1d_misses,l1d_loads", XP_COUNTER_HW, "A large share of L1D reads miss.",
	  "Same as l1d_mpki: touch memory sequentially, keep hot data small and together." },
	{ "llc_miss_rate", "LLC miss rate", "llc_misses / llc_loads", "ratio", 0.30, ABOVE,
	  "llc_misses,llc_loads", XP_COUNTER_HW, "Most last-level cache reads go to DRAM.",
	  "Same as llc_mpki: shrink or stream the working set." },
	{ "branch_mpki", "Branch mispredictions", "1000 * branch_misses / instructions", "MPKI", 5,
	  ABOVE, "branch_misses,instructions", XP_COUNTER_HW,
	  "Data-dependent branches mispredict (typical of parsers and interpreters).",
	  "Use table-driven or SIMD parsing (simdjson); sort data before branching on it." },
	{ "branch_miss_rate", "Branch miss rate", "branch_misses / branch_instructions", "ratio",
	  0.05, ABOVE, "branch_misses,branch_instructions", XP_COUNTER_HW,
	  "A large share of branches mispredict.",
	  "Same as branch_mpki: remove unpredictable branches from hot loops." },
	{ "page_fault_rate", "Page faults", "page_faults / (task_clock_ns / 1e6)", "per CPU-ms", 10,
	  ABOVE, "page_faults,task_clock_ns", XP_COUNTER_SW,
	  "Memory is touched for the first time over and over (fresh allocations, mmap).",
	  "Reuse buffers, raise M_MMAP_THRESHOLD/M_TRIM_THRESHOLD, prefault with MAP_POPULATE." },
	{ "major_faults", "Major faults", "major_faults", "count", 0, ABOVE, "major_faults",
	  XP_COUNTER_SW, "Pages come from disk: cold page cache or swapping.",
	  "Preload data files, check swap use, give the machine more memory." },
	{ "ctx_switch_rate", "Context switches", "context_switches / (task_clock_ns / 1e9)",
	  "per CPU-s", 2000, ABOVE, "context_switches,task_clock_ns", XP_COUNTER_SW,
	  "Threads block and wake very often (small I/O, lock ping-pong).",
	  "Batch small reads and writes, use larger buffers, reduce lock contention." },
	{ "migration_rate", "CPU migrations", "cpu_migrations / context_switches (0 if none)",
	  "ratio", 0.3, ABOVE, "cpu_migrations,context_switches", XP_COUNTER_SW,
	  "Threads move between CPUs and lose their warm caches.",
	  "Pin the agent and hot tools (taskset, cpusets) or reduce oversubscription." },
	{ "runq_latency", "Run-queue latency", "sched.runq_ns / (sched.on_cpu_ns + sched.runq_ns)",
	  "ratio", 0.10, ABOVE, "sched.runq_ns,sched.on_cpu_ns", XP_COUNTER_SW,
	  "Runnable threads wait for a CPU.",
	  "Run fewer concurrent processes than cores, or raise the agent's priority." },
};
const size_t th_l4_count = sizeof(th_l4_table) / sizeof(th_l4_table[0]);

#define IN_TOK "gen_ai.usage.input_tokens"
#define OUT_TOK "gen_ai.usage.output_tokens"

/* name, domain, supply, effective, l3_home, supply_l3, effective_l3, work_attr, ref_ns */
const struct th_stage th_stage_table[] = {
	{ "prompt_assembly", XP_DOMAIN_COMPUTE, 0, 1, "compute.processing.prompt_assembly",
	  "compute.supply.blocked_wait", "compute.effective.prompt_assembly", IN_TOK, 1000 },
	{ "response_parse", XP_DOMAIN_COMPUTE, 0, 1, "compute.processing.response_parse",
	  "compute.supply.blocked_wait", "compute.effective.response_parse", OUT_TOK, 2000 },
	{ "tool_call", XP_DOMAIN_COMPUTE, 0, 1, "compute.processing.tool_cpu",
	  "compute.supply.tool_io_blocked", "compute.effective.tool_execution", NULL, 0 },
	{ "tool_compute", XP_DOMAIN_COMPUTE, 0, 1, "compute.processing.tool_cpu",
	  "compute.supply.tool_io_blocked", "compute.effective.tool_execution", NULL, 0 },
	{ "orchestration", XP_DOMAIN_COMPUTE, 0, 0, "compute.processing.orchestration",
	  "compute.supply.blocked_wait", NULL, NULL, 0 },
	{ "context_compress", XP_DOMAIN_COMPUTE, 0, 0, "compute.processing.context_compress",
	  "compute.supply.blocked_wait", NULL, NULL, 0 },
	{ "state_serialize", XP_DOMAIN_COMPUTE, 0, 0, "compute.processing.state_serialize",
	  "compute.supply.blocked_wait", NULL, NULL, 0 },
	{ "memory_ops", XP_DOMAIN_COMPUTE, 0, 0, "compute.processing.memory_ops",
	  "compute.supply.blocked_wait", NULL, NULL, 0 },
	{ "waiting", XP_DOMAIN_COMPUTE, 1, 0, "compute.supply.blocked_wait",
	  "compute.supply.blocked_wait", NULL, NULL, 0 },
	/* the agent's own child processes that no model tool call asked for (housekeeping) */
	{ "agent_subprocess", XP_DOMAIN_COMPUTE, 0, 0, "compute.processing.orchestration",
	  "compute.supply.blocked_wait", NULL, NULL, 0 },
	{ "llm_inference", XP_DOMAIN_INTELLIGENT, 0, 1, "intelligent.processing.slow_decode",
	  "intelligent.supply.queue_wait", "intelligent.effective.decode", OUT_TOK,
	  NS_PER_S / REF_DECODE_TPS },
	{ "prefill", XP_DOMAIN_INTELLIGENT, 0, 1, "intelligent.processing.long_prefill",
	  "intelligent.supply.queue_wait", "intelligent.effective.prefill", IN_TOK,
	  NS_PER_S / REF_PREFILL_TPS },
	{ "decode", XP_DOMAIN_INTELLIGENT, 0, 1, "intelligent.processing.slow_decode",
	  "intelligent.supply.queue_wait", "intelligent.effective.decode", OUT_TOK,
	  NS_PER_S / REF_DECODE_TPS },
	{ "sampling", XP_DOMAIN_INTELLIGENT, 0, 0, "intelligent.processing.sampling",
	  "intelligent.supply.queue_wait", NULL, NULL, 0 },
	{ "queue_wait", XP_DOMAIN_INTELLIGENT, 1, 0, "intelligent.supply.queue_wait",
	  "intelligent.supply.queue_wait", NULL, NULL, 0 },
	{ "gpu_kernel", XP_DOMAIN_INTELLIGENT, 0, 1, "intelligent.processing.gpu_kernel",
	  "intelligent.supply.gpu_host_wait", "intelligent.effective.gpu_kernel", NULL, 0 },
	{ "gpu_memcpy", XP_DOMAIN_INTELLIGENT, 0, 0, "intelligent.processing.gpu_memcpy",
	  "intelligent.supply.gpu_host_wait", NULL, NULL, 0 },
	{ "gpu_memset", XP_DOMAIN_INTELLIGENT, 0, 0, "intelligent.processing.gpu_memcpy",
	  "intelligent.supply.gpu_host_wait", NULL, NULL, 0 },
	{ "gpu_sync", XP_DOMAIN_INTELLIGENT, 0, 0, "intelligent.processing.gpu_sync",
	  "intelligent.supply.gpu_host_wait", NULL, NULL, 0 },
	{ "gpu_launch", XP_DOMAIN_INTELLIGENT, 1, 0, "intelligent.supply.gpu_launch_overhead",
	  "intelligent.supply.gpu_launch_overhead", NULL, NULL, 0 },
	{ "gpu_idle", XP_DOMAIN_INTELLIGENT, 1, 0, "intelligent.supply.gpu_host_wait",
	  "intelligent.supply.gpu_host_wait", NULL, NULL, 0 },
	{ "prompt_transfer", XP_DOMAIN_FUSED, 1, 0, "fused.supply.request_upload",
	  "fused.supply.request_upload", NULL, NULL, 0 },
	{ "response_transfer", XP_DOMAIN_FUSED, 0, 1, "fused.processing.response_transfer",
	  "fused.supply.streaming_gap", "fused.effective.response_delivery",
	  "http.response.body.size", 10 },
	{ "ttft", XP_DOMAIN_FUSED, 1, 0, "fused.supply.ttft", "fused.supply.ttft", NULL, NULL, 0 },
	{ "streaming_gap", XP_DOMAIN_FUSED, 1, 0, "fused.supply.streaming_gap",
	  "fused.supply.streaming_gap", NULL, NULL, 0 },
	{ "rate_limit_wait", XP_DOMAIN_FUSED, 1, 0, "fused.supply.rate_limit",
	  "fused.supply.rate_limit", NULL, NULL, 0 },
	{ "connection_setup", XP_DOMAIN_FUSED, 0, 0, "fused.processing.connection_setup",
	  "fused.supply.request_upload", NULL, NULL, 0 },
};
const size_t th_stage_count = sizeof(th_stage_table) / sizeof(th_stage_table[0]);

/* Each waste kind's L3 is the waste point named after it. */
const struct th_waste_kind th_waste_kind_table[] = {
	{ "failed_tool_call", "compute.waste.failed_tool_call" },
	{ "repeated_tool_call", "compute.waste.repeated_tool_call" },
	{ "retry", "intelligent.waste.retry" },
	{ "llm_error", "intelligent.waste.llm_error" },
	{ "truncated_output", "intelligent.waste.truncated_output" },
	{ "context_overflow", "intelligent.waste.context_overflow" },
	{ "aborted_stream", "fused.waste.aborted_stream" },
};
const size_t th_waste_kind_count = sizeof(th_waste_kind_table) / sizeof(th_waste_kind_table[0]);

/* The counter names of TurnTrace spans: one per lib/counters.h counter, indexed by it. */
const struct th_counter_name th_counter_name_table[] = {
	[XP_CTR_TASK_CLOCK] = { "task_clock_ns", XP_COUNTER_SW, "ns" },
	[XP_CTR_CTX_SWITCHES] = { "context_switches", XP_COUNTER_SW, "count" },
	[XP_CTR_MIGRATIONS] = { "cpu_migrations", XP_COUNTER_SW, "count" },
	[XP_CTR_PAGE_FAULTS] = { "page_faults", XP_COUNTER_SW, "count" },
	[XP_CTR_MAJOR_FAULTS] = { "major_faults", XP_COUNTER_SW, "count" },
	[XP_CTR_INSTRUCTIONS] = { "instructions", XP_COUNTER_HW, "count" },
	[XP_CTR_CYCLES] = { "cycles", XP_COUNTER_HW, "count" },
	[XP_CTR_L1D_MISSES] = { "l1d_misses", XP_COUNTER_HW, "count" },
	[XP_CTR_LLC_MISSES] = { "llc_misses", XP_COUNTER_HW, "count" },
	[XP_CTR_BRANCH_MISSES] = { "branch_misses", XP_COUNTER_HW, "count" },
	[XP_CTR_BRANCHES] = { "branch_instructions", XP_COUNTER_HW, "count" },
	[XP_CTR_L1D_LOADS] = { "l1d_loads", XP_COUNTER_HW, "count" },
	[XP_CTR_LLC_LOADS] = { "llc_loads", XP_COUNTER_HW, "count" },
};
const size_t th_counter_name_count =
	sizeof(th_counter_name_table) / sizeof(th_counter_name_table[0]);
_Static_assert(sizeof(th_counter_name_table) / sizeof(th_counter_name_table[0]) == XP_CTR_COUNT,
	       "a TurnTrace name for each lib/counters.h counter");

const struct th_rules th_rules = {
	.cpu_ratio_supply = 0.3,
	.drill_threshold = 0.2,
	.streaming_gap_ratio = 2.0,
	.streaming_gap_min_ms = 50.0,
	.ref_decode_tps = REF_DECODE_TPS,
	.unknown_stage_domain = "compute",
	.unknown_stage_l3 = "compute.processing.custom_stage",
	.uncovered_stage = "orchestration",
};
