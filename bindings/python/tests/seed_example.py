import xperf

xperf.init(agent_info={"name": "claude-code", "model": "claude-sonnet-4-6"})
turn = xperf.start_turn()

# 1. Prompt 组装（通算域 Processing）
span_prompt = turn.enter("prompt_assembly")
# ... build prompt
turn.leave(span_prompt)

# 2. Prompt 传输 → TTFT（融合域 Supply）
span_ttf = turn.enter("prompt_transfer")
turn.mark_fused("ttft", {"ttft_ns": elapsed_ns})
turn.leave(span_ttf)

# 3. LLM 推理（智算域）
span_llm = turn.enter_llm({"system": "anthropic", "request_model": "claude-sonnet-4-6", "input_tokens": 150})
# ... receive streaming tokens
turn.leave_llm(span_llm, {"output_tokens": 80, "finish_reason": "stop"})

# 4. Response 解析（通算域）
span_parse = turn.enter("response_parse")
# ... parse output
turn.leave(span_parse)

# 5. Tool 调用（含失败 → Waste）
span_tool = turn.enter("tool_call", tool_name="bash")
# ... execute tool
if tool_result.is_error:
    turn.mark_waste("failed_tool_call", {"failed_calls": 1, "retries": 2})
turn.leave(span_tool)

xperf.end_turn(turn)
