# SPDX-License-Identifier: MIT
"""python_agent.py - a small tool-using agent loop, instrumented with xperf.

Each task is one turn: assemble the prompt from the system prompt, the
history and the task; send it (the model is simulated, as there is no
network: sleeps stand for the time to first token and for each streamed
token, recorded with span.token()); parse the model's JSON answer; run the
tool it asks for as a real /bin/sh subprocess. A failing tool is Waste: the
model is asked again (a retry) and proposes a corrected command. Traces go to
$XPERF_TRACE_DIR (default .xperf/traces)/<session>/turn_NNN.json.

usage: python3 python_agent.py [task...]   (PYTHONPATH=bindings/python)
"""

import json
import subprocess
import sys
import time

import xperf

MODEL = "claude-sonnet-4-6"
SYSTEM = ('You are a careful shell assistant. Answer with one JSON object '
          '{"tool": "sh", "command": ...} and nothing else.')
TASKS = [
    "List a few files in /etc",
    "How many accounts are in /etc/passwd?",
    "What is this machine's hostname?",
]


def build_prompt(history, task):
    past = "".join("- %s: exit %d\n" % h for h in history) or "(none)\n"
    return "%s\n\n# History\n%s\n# Task\n%s\n" % (SYSTEM, past, task)


def model_answer(task, attempt):
    """The simulated model; its first try at the hostname task reads the wrong path."""
    cmd = "ls /etc | head -n 5"
    if "passwd" in task:
        cmd = "wc -l < /etc/passwd"
    elif "hostname" in task:
        cmd = "cat /etc/hostname.missing" if attempt == 0 else "cat /etc/hostname"
    return json.dumps({"tool": "sh", "command": cmd})


def ask_model(turn, prompt, task, attempt):
    with turn.span("prompt_transfer") as transfer:
        body = json.dumps({"model": MODEL, "stream": True,
                           "messages": [{"role": "user", "content": prompt}]})
        transfer.set({"http.request.body.size": len(body)})
    with turn.llm({"system": "anthropic", "request_model": MODEL,
                   "input_tokens": len(prompt) // 4}) as llm:
        answer = model_answer(task, attempt)
        time.sleep(0.015)  # queueing and prefill until the first token
        for _ in range(0, len(answer), 4):
            time.sleep(0.004)  # decoding: one token of ~4 characters
            llm.token()
        llm.respond(output_tokens=(len(answer) + 3) // 4, finish_reason="tool_use",
                    response_model=MODEL)
    return answer


def act(turn, answer):
    with turn.span("response_parse", output_tokens=len(answer) // 4 + 1):
        try:
            cmd = json.loads(answer)["command"]
        except (ValueError, KeyError):
            cmd = None
    if cmd is None:
        turn.mark_waste("llm_error")
        return -1, ""
    with turn.span("tool_call", tool_name="sh", command_line=cmd) as tool:
        r = subprocess.run(["/bin/sh", "-c", cmd], capture_output=True, text=True)
        tool.set(exit_code=r.returncode)
        if r.returncode != 0:
            turn.mark_waste("failed_tool_call", {"failed_calls": 1})
    return r.returncode, r.stdout + r.stderr


def run_task(history, task):
    with xperf.turn() as turn:
        rc, out = -1, ""
        for attempt in range(3):
            with turn.span("prompt_assembly") as assembly:
                prompt = build_prompt(history, task)
                assembly.set(input_tokens=len(prompt) // 4)  # its work, for effective time
            if attempt:
                turn.mark_waste("retry", {"retries": 1})
            rc, out = act(turn, ask_model(turn, prompt, task, attempt))
            if rc == 0:
                break
    print("task: %s\n%s" % (task, out), end="")
    history.append((task, rc))


def main(argv):
    xperf.init(agent_info={"name": "python-agent", "model": MODEL})
    history = []
    for task in argv[1:] or TASKS:
        run_task(history, task)
    print("traces: %s" % xperf.session_dir())
    xperf.shutdown()


if __name__ == "__main__":
    main(sys.argv)
