# SPDX-License-Identifier: MIT
"""Tests of the Python binding over libxperf.so: the seed example verbatim,
exact OTel attribute mapping, context managers, exceptions mapped from the
C error codes, threads, failing writes, $XPERF_TRACE_DIR, the exit flush.
Every trace file produced is validated with `xperf validate` ($XPERF_CLI)."""

import glob
import json
import os
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import xperf

HERE = os.path.dirname(os.path.abspath(__file__))
TMP = os.environ.get("TEST_TMPDIR", tempfile.gettempdir())


def validate(path):
    """Runs the schema validator; fails the test with its report."""
    cli = os.environ["XPERF_CLI"]
    # The CLI carries its own sanitizer runtime when built with --config=asan.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    r = subprocess.run([cli, "validate", path], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise AssertionError("invalid trace(s) under %s:\n%s%s" % (path, r.stdout, r.stderr))


def load(path):
    validate(path)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def span(doc, stage):
    return next(s for s in doc["spans"] if s["stage"] == stage)


class SessionTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="py.", dir=TMP)
        xperf.init(agent_info={"name": "py-test", "model": "m"}, trace_dir=self.dir)

    def tearDown(self):
        xperf.shutdown()
        validate(self.dir)

    def turn_file(self, turn):
        return os.path.join(xperf.session_dir(), "turn_%03d.json" % turn.handle)


class Seed(unittest.TestCase):
    def test_seed_example_unchanged(self):
        d = tempfile.mkdtemp(prefix="seed.", dir=TMP)
        env = dict(os.environ, XPERF_TRACE_DIR=d)
        r = subprocess.run([sys.executable, os.path.join(HERE, "run_seed.py")],
                           env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        session = r.stdout.strip()
        self.assertTrue(session.startswith(d + "/"))
        self.assertEqual(os.listdir(session), ["turn_001.json"])
        path = os.path.join(session, "turn_001.json")
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
        doc = load(path)
        self.assertEqual(doc["agent"]["name"], "claude-code")
        self.assertEqual(doc["data_quality"]["tier"], "sdk")
        self.assertEqual([s["stage"] for s in doc["spans"]],
                         ["prompt_assembly", "prompt_transfer", "llm_inference",
                          "response_parse", "tool_call"])
        self.assertEqual(span(doc, "llm_inference")["attributes"], {
            "gen_ai.provider.name": "anthropic",
            "gen_ai.request.model": "claude-sonnet-4-6",
            "gen_ai.usage.input_tokens": 150,
            "gen_ai.usage.output_tokens": 80,
            "gen_ai.response.finish_reasons": ["stop"],
        })
        self.assertEqual(span(doc, "llm_inference")["domain"], "intelligent")
        self.assertEqual(span(doc, "prompt_transfer")["domain"], "fused")
        self.assertEqual(span(doc, "tool_call")["category"], "waste")
        self.assertEqual(span(doc, "tool_call")["attributes"], {"tool.name": "bash"})
        (fused,) = doc["fused_marks"]
        self.assertEqual((fused["kind"], fused["attributes"]["ttft_ns"]), ("ttft", 1234567))
        (waste,) = doc["waste_marks"]
        self.assertEqual(waste["l3"], "compute.waste.failed_tool_call")
        self.assertEqual(waste["counts"], {"failed_calls": 1, "retries": 2})
        self.assertEqual(waste["span"], span(doc, "tool_call")["id"])


class Binding(SessionTest):
    def test_context_managers_leave_on_exception(self):
        with xperf.turn() as t:
            with self.assertRaises(RuntimeError):
                with t.span("tool_call", tool_name="bash", command_line="false") as s:
                    s.set(exit_code=1)
                    raise RuntimeError("tool failed")
            with t.llm({"provider": "openai", "model": "gpt-4o", "stream": True}) as s:
                s.respond(output_tokens=12, finish_reasons=["length"], ttft_ns=2_500_000_000)
        doc = load(self.turn_file(t))
        self.assertEqual(span(doc, "tool_call")["attributes"], {
            "tool.name": "bash", "process.command_line": "false", "process.exit.code": 1})
        self.assertEqual(span(doc, "llm_inference")["attributes"], {
            "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o",
            "xperf.stream": True, "gen_ai.usage.output_tokens": 12,
            "gen_ai.response.finish_reasons": ["length"], "xperf.ttft_ns": 2500000000,
            "gen_ai.server.time_to_first_token": 2.5})

    def test_errors_become_exceptions(self):
        t = xperf.start_turn()
        s = t.enter("prompt_assembly")
        t.leave(s)
        with self.assertRaises(xperf.SpanClosedError) as e:
            t.leave(s)
        self.assertEqual(e.exception.code, -6)
        with self.assertRaises(xperf.NoSpanError):
            t.leave(42)
        with self.assertRaises(xperf.NoSpanError):
            t.leave(1 << 40)
        other = xperf.start_turn()
        with self.assertRaises(xperf.NoSpanError):  # same id 1 exists in t: refused anyway
            t.leave(other.enter("orchestration"))
        xperf.end_turn(other)
        with self.assertRaises(xperf.UnknownKindError):
            t.mark_waste("coffee_break")
        with self.assertRaises(xperf.InvalidArgumentError):
            t.enter("two words")
        with self.assertRaises(xperf.InvalidArgumentError):
            t.enter_llm({"input_tokens": "many"})
        with self.assertRaises(TypeError):
            t.enter_llm({"input_tokens": object()})
        with self.assertRaises(xperf.NotLLMSpanError):
            t.leave_llm(t.enter("response_parse"))
        with self.assertRaises(xperf.AlreadyInitializedError):
            xperf.init(agent_info={"name": "again"})
        self.assertTrue(xperf.end_turn(t))
        with self.assertRaises(xperf.NoTurnError):
            xperf.end_turn(t)
        self.assertEqual(xperf.stats()["misuse"], 8)  # the TypeError never reached C

    def test_wrong_thread_and_threads(self):
        t = xperf.start_turn()
        outer = t.enter("orchestration")
        err = []
        th = threading.Thread(target=lambda: err.append(self._try_leave(t, outer)))
        th.start()
        th.join()
        self.assertIsInstance(err[0], xperf.WrongThreadError)

        def work(n):
            with t.span("tool_compute", tool_name="w%d" % n):
                for _ in range(50):
                    with t.span("response_parse"):
                        pass
        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        t.leave(outer)
        xperf.end_turn(t)
        doc = load(self.turn_file(t))
        self.assertEqual(len(doc["spans"]), 1 + 4 * 51)
        by_id = {s["id"]: s for s in doc["spans"]}
        for s in doc["spans"]:
            if s["stage"] == "response_parse":
                self.assertEqual(by_id[s["parent"]]["tid"], s["tid"])

    @staticmethod
    def _try_leave(t, s):
        try:
            t.leave(s)
        except xperf.XperfError as e:
            return e
        return None

    def test_streamed_tokens(self):
        with xperf.turn() as t:
            with t.llm({"system": "openai"}) as llm:
                for i in range(5):
                    time.sleep(0.3 if i == 3 else 0.002)
                    llm.token()
            with self.assertRaises(xperf.SpanClosedError):
                llm.token()
        with self.assertRaises(xperf.NoTurnError):
            llm.token()
        doc = load(self.turn_file(t))
        a = span(doc, "llm_inference")["attributes"]
        self.assertEqual(len(a["xperf.token_times_ns"]), 5)
        self.assertGreater(a["xperf.ttft_ns"], 0)
        gaps = [m for m in doc["fused_marks"] if m["kind"] == "streaming_gap"]
        self.assertIn(a["xperf.token_times_ns"][3], [m["t_ns"] for m in gaps])

    def test_asyncio_tasks_with_detached_spans(self):
        import asyncio

        async def call(t, i):
            with t.span("tool_call", tool_name="t%d" % i, detached=True):
                await asyncio.sleep(0.01 * (3 - i))
                with t.llm({"system": "anthropic"}, detached=True) as llm:
                    await asyncio.sleep(0.005)
                    llm.token()

        async def main(t):
            with t.span("orchestration", detached=True):
                await asyncio.gather(*(call(t, i) for i in range(3)))

        with xperf.turn() as t:
            asyncio.run(main(t))
        doc = load(self.turn_file(t))
        by_id = {s["id"]: s for s in doc["spans"]}
        tools = [s for s in doc["spans"] if s["stage"] == "tool_call"]
        self.assertEqual(len(tools), 3)
        for s in doc["spans"]:
            if s["stage"] == "llm_inference":  # under its own task's tool span
                parent = by_id[s["parent"]]
                self.assertEqual(parent["stage"], "tool_call")
                self.assertLessEqual(parent["start_ns"], s["start_ns"])
                self.assertLessEqual(s["end_ns"], parent["end_ns"])
            if s["stage"] == "tool_call":
                self.assertEqual(by_id[s["parent"]]["stage"], "orchestration")
        self.assertEqual(len({by_id[s["parent"]]["id"] for s in doc["spans"]
                              if s["stage"] == "llm_inference"}), 3)

    def test_sleep_is_off_cpu(self):
        with xperf.turn() as t:
            with t.span("tool_call", tool_name="sleep"):
                time.sleep(0.03)
        s = span(load(self.turn_file(t)), "tool_call")
        self.assertGreaterEqual(s["end_ns"] - s["start_ns"], 30_000_000)
        self.assertLess(s["sched"]["on_cpu_ns"], 5_000_000)
        self.assertEqual(s["category"], "supply")

    def test_unknown_stage_warns(self):
        with xperf.turn() as t:
            with t.span("vector_search"):
                pass
        doc = load(self.turn_file(t))
        s = span(doc, "vector_search")
        self.assertEqual((s["domain"], s.get("custom_stage")), ("compute", True))
        self.assertTrue(any("vector_search" in w for w in doc["data_quality"]["warnings"]))


class Environment(unittest.TestCase):
    def test_failing_write_never_raises(self):
        d = tempfile.mkdtemp(prefix="ro.", dir=TMP)
        blocker = os.path.join(d, "s")
        open(blocker, "w").close()  # a file where the session directory must go
        xperf.init(agent_info={"name": "ro"}, trace_dir=d, session_id="s")
        for _ in range(2):
            t = xperf.start_turn()
            t.leave(t.enter("prompt_assembly"))
            self.assertFalse(xperf.end_turn(t))
        self.assertEqual(xperf.stats()["write_failures"], 2)
        xperf.shutdown()

    def test_env_dir_and_exit_flush(self):
        d = tempfile.mkdtemp(prefix="env.", dir=TMP)
        code = ("import xperf\n"
                "xperf.init(agent_info={'name': 'exiting'})\n"
                "t = xperf.start_turn()\n"
                "t.enter('tool_call', tool_name='sleep')\n")
        env = dict(os.environ, XPERF_TRACE_DIR=d, XPERF_SESSION_ID="exit-flush")
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = load(os.path.join(d, "exit-flush", "turn_001.json"))
        self.assertFalse(doc["complete"])
        self.assertTrue(any("not left" in w for w in doc["data_quality"]["warnings"]))
        self.assertEqual(glob.glob(os.path.join(d, "exit-flush", "*.tmp*")), [])

    def test_sigterm_flushes_open_turns(self):
        d = tempfile.mkdtemp(prefix="sig.", dir=TMP)
        code = ("import sys, time, xperf\n"
                "xperf.init(agent_info={'name': 'killed'})\n"
                "t = xperf.start_turn()\n"
                "t.enter('llm_inference')\n"
                "print('ready', flush=True)\n"
                "time.sleep(30)\n")
        env = dict(os.environ, XPERF_TRACE_DIR=d, XPERF_SESSION_ID="sig")
        p = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                             text=True)
        self.assertEqual(p.stdout.readline().strip(), "ready")
        p.terminate()
        self.assertEqual(p.wait(timeout=20), -15)  # still dies of SIGTERM
        doc = load(os.path.join(d, "sig", "turn_001.json"))
        self.assertFalse(doc["complete"])
        self.assertEqual(doc["spans"][0]["stage"], "llm_inference")

    def test_before_init(self):
        with self.assertRaises(xperf.NotInitializedError):
            xperf.start_turn()


if __name__ == "__main__":
    unittest.main(verbosity=2)
