# SPDX-License-Identifier: MIT
"""xperf: mark the stages of an agent's turns; libxperf measures them and
writes one TurnTrace file per turn to .xperf/traces/{session_id}/turn_NNN.json.

    import xperf

    xperf.init(agent_info={"name": "claude-code", "model": "claude-sonnet-4-6"})
    turn = xperf.start_turn()
    span = turn.enter("prompt_assembly")
    ...
    turn.leave(span)
    with turn.span("tool_call", tool_name="bash"):
        ...
    xperf.end_turn(turn)

Errors of the C library (sdk/xperf.h) become exceptions: XperfError and one
subclass per code. A trace file that cannot be written never raises: the
turn ends, the failure is counted (stats()) and reported once on stderr.
"""

import contextvars
import ctypes
import os
import signal
import threading

from . import _native

__all__ = [
    "init", "shutdown", "start_turn", "end_turn", "turn", "stats", "session_dir",
    "Turn", "Span", "XperfError",
]

_lib = None
_lib_lock = threading.Lock()
# The innermost detached span of the running asyncio task (or thread): (turn, id).
_current = contextvars.ContextVar("xperf_detached_span", default=None)


class XperfError(Exception):
    """A call refused by libxperf; `code` is its XP_E* value (negative)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class InvalidArgumentError(XperfError, ValueError):
    """XP_EINVAL: a malformed stage name, kind, key or value."""


class NotInitializedError(XperfError):
    """XP_ENOINIT: init() was not called, or shutdown() was."""


class AlreadyInitializedError(XperfError):
    """XP_EALREADY: init() called twice without shutdown()."""


class NoTurnError(XperfError):
    """XP_ENOTURN: the turn is not open (never started, or already ended)."""


class NoSpanError(XperfError):
    """XP_ENOSPAN: no span with this id in the turn."""


class SpanClosedError(XperfError):
    """XP_ECLOSED: the span was already left."""


class WrongThreadError(XperfError):
    """XP_ETHREAD: a span must be left by the thread that entered it."""


class SpanOrderError(XperfError):
    """XP_EORDER: a span nested in this one is still open on this thread."""


class LimitError(XperfError):
    """XP_ELIMIT: a per-turn limit was reached; the event was dropped and counted."""


class OutOfMemoryError(XperfError, MemoryError):
    """XP_ENOMEM: the event was dropped and counted."""


class WriteError(XperfError):
    """XP_EWRITE: a trace file could not be written (counted; see stats())."""


class UnknownKindError(XperfError, ValueError):
    """XP_EKIND: not a fused or waste mark kind of the TurnTrace schema."""


class NotLLMSpanError(XperfError):
    """XP_ENOTLLM: leave_llm() on a span not entered with enter_llm()."""


_ERRORS = {
    _native.EINVAL: InvalidArgumentError,
    _native.ENOINIT: NotInitializedError,
    _native.EALREADY: AlreadyInitializedError,
    _native.ENOTURN: NoTurnError,
    _native.ENOSPAN: NoSpanError,
    _native.ECLOSED: SpanClosedError,
    _native.ETHREAD: WrongThreadError,
    _native.EORDER: SpanOrderError,
    _native.ELIMIT: LimitError,
    _native.ENOMEM: OutOfMemoryError,
    _native.EWRITE: WriteError,
    _native.EKIND: UnknownKindError,
    _native.ENOTLLM: NotLLMSpanError,
}


def _c():
    global _lib
    if _lib is None:  # the lock only until the library is loaded: _c() is on every call
        with _lib_lock:
            if _lib is None:
                _lib = _native.load()
    return _lib


def _check(rc):
    if rc < 0:
        msg = _c().xperf_strerror(rc).decode()
        raise _ERRORS.get(rc, XperfError)(rc, "xperf: " + msg)
    return rc


def _text(s, what):
    if s is None:
        return None
    if not isinstance(s, str):
        raise TypeError("xperf: %s must be str, not %s" % (what, type(s).__name__))
    return s.encode()


_stage_bytes = {}


def _stage(stage):
    """Encoded stage name; the few distinct names of an agent are encoded once."""
    b = _stage_bytes.get(stage)
    if b is None:
        b = _text(stage, "stage")
        if len(_stage_bytes) < 1024:
            _stage_bytes[stage] = b
    return b


class Span:
    """An entered span: pass it to Turn.leave(), or use Turn.span() as a context manager."""

    __slots__ = ("turn", "id", "stage", "_response")

    def __init__(self, turn, span_id, stage):
        self.turn = turn
        self.id = span_id
        self.stage = stage
        self._response = None

    def set(self, attributes=None, **kw):
        """Add attributes now (e.g. exit_code after the tool ran)."""
        self.turn.set(self, dict(attributes or {}, **kw))

    def token(self):
        """LLM spans: a token (or chunk) of the streamed answer arrived now."""
        rc = _c().xperf_llm_token(self.turn.handle, self.id)
        if rc:
            _check(rc)

    def respond(self, attributes=None, **kw):
        """LLM spans under Turn.llm(): attributes given to leave_llm() at exit."""
        self._response = dict(self._response or {}, **dict(attributes or {}, **kw))

    def __int__(self):
        return self.id

    def __repr__(self):
        return "Span(%d, %r)" % (self.id, self.stage)


def _span_id(turn, span):
    """The id of a Span of this turn (or a bare int); a Span of another turn is refused."""
    if type(span) is not Span:
        sid = int(span)
        if not 0 < sid < 1 << 31:  # the untyped C call would overflow
            raise NoSpanError(_native.ENOSPAN, "xperf: no span %d" % sid)
        return sid
    if span.turn is not turn:
        raise NoSpanError(_native.ENOSPAN, "xperf: span %d belongs to another turn" % span.id)
    return span.id


class _SpanContext:
    def __init__(self, turn, enter, leave, detached=False):
        self._turn, self._enter, self._leave, self._detached = turn, enter, leave, detached
        self._token = None
        self.span = None

    def __enter__(self):
        self.span = self._enter()
        if self._detached:  # the parent of this task's next detached spans
            self._token = _current.set((self._turn, self.span.id))
        return self.span

    def __exit__(self, exc_type, exc, tb):
        if self._token is not None:
            _current.reset(self._token)
        self._leave(self.span)
        return False


class Turn:
    """One open turn (the handle returned by start_turn)."""

    def __init__(self, handle):
        self.handle = handle

    def enter(self, stage, tool_name=None, detached=False, parent=None):
        """Enter a span of `stage`; returns a Span for leave().

        detached=True: a span not tied to this thread (asyncio tasks, callbacks):
        any thread may leave it, only its wall time is measured. Its parent is
        `parent`, else the innermost detached span of the running task in this turn.
        """
        if detached or parent is not None:
            return self._enter_ex(stage, tool_name, False, None, detached, parent)
        sid = _c().xperf_enter(self.handle, _stage(stage), _text(tool_name, "tool_name"))
        return Span(self, sid if sid > 0 else _check(sid), stage)

    def _enter_ex(self, stage, tool_name, llm, attributes, detached, parent):
        if detached and parent is None:
            cur = _current.get()
            parent = cur[1] if cur and cur[0] is self else 0
        arr, n, _keep = _native.attrs(attributes)
        opts = _native.SpanOpts(None if stage is None else _stage(stage),
                                _text(tool_name, "tool_name"), int(llm), int(detached),
                                _span_id(self, parent) if parent else 0, arr, n)
        sid = _check(_c().xperf_enter_ex(self.handle, ctypes.byref(opts)))
        return Span(self, sid, stage or "llm_inference")

    def leave(self, span):
        rc = _c().xperf_leave(self.handle, _span_id(self, span))
        if rc:
            _check(rc)

    def enter_llm(self, attributes=None, stage=None, detached=False, parent=None):
        """Enter an LLM span (llm_inference unless `stage`); short keys map to OTel GenAI names."""
        if detached or parent is not None:
            return self._enter_ex(stage, None, True, attributes, detached, parent)
        arr, n, _keep = _native.attrs(attributes)
        sid = _check(_c().xperf_enter_llm(self.handle, _text(stage, "stage"), arr, n))
        return Span(self, sid, stage or "llm_inference")

    def leave_llm(self, span, attributes=None):
        arr, n, _keep = _native.attrs(attributes)
        _check(_c().xperf_leave_llm(self.handle, _span_id(self, span), arr, n))

    def set(self, span, attributes):
        arr, n, _keep = _native.attrs(attributes)
        _check(_c().xperf_span_set(self.handle, _span_id(self, span), arr, n))

    def mark_fused(self, kind, attributes=None):
        arr, n, _keep = _native.attrs(attributes)
        _check(_c().xperf_mark_fused(self.handle, _text(kind, "kind"), arr, n))

    def mark_waste(self, kind, attributes=None):
        arr, n, _keep = _native.attrs(attributes)
        _check(_c().xperf_mark_waste(self.handle, _text(kind, "kind"), arr, n))

    def span(self, stage, tool_name=None, detached=False, **attributes):
        """`with turn.span("tool_call", tool_name="bash") as s:` enters, and always leaves.

        detached=True (inside asyncio tasks): nested detached spans of the same
        task get it as their parent, whatever other tasks do meanwhile.
        """
        def enter():
            s = self.enter(stage, tool_name, detached=detached)
            if attributes:
                s.set(attributes)
            return s
        return _SpanContext(self, enter, self.leave, detached)

    def llm(self, attributes=None, stage=None, detached=False):
        """`with turn.llm({...}) as s: ...; s.respond(output_tokens=80)` for an LLM span."""
        return _SpanContext(self, lambda: self.enter_llm(attributes, stage, detached=detached),
                            lambda s: self.leave_llm(s, s._response), detached)

    def end(self):
        return end_turn(self)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.end()
        return False


def init(agent_info, trace_dir=None, session_id=None, counters=True, capture_content=False,
         flush_on_signals=True):
    """Start the session. agent_info: {"name": ..., "model": ...} (name required).

    trace_dir: default $XPERF_TRACE_DIR, else .xperf/traces. session_id: default
    $XPERF_SESSION_ID, else generated. counters: True (software, and hardware
    where the machine has a PMU), "software", or False (clocks only).
    capture_content=True keeps prompt/completion text attributes.
    flush_on_signals: SIGTERM and SIGHUP, where the host set no handler, first
    write the open turns (complete=false); at exit libxperf does it anyway.
    """
    if not isinstance(agent_info, dict):
        raise TypeError("xperf: agent_info must be a dict with a 'name'")
    unknown = set(agent_info) - {"name", "model"}
    if unknown:
        raise InvalidArgumentError(_native.EINVAL,
                                   "xperf: unknown agent_info keys: %s" % sorted(unknown))
    agent = _native.AgentInfo(_text(agent_info.get("name"), "name"),
                              _text(agent_info.get("model"), "model"))
    if counters not in (True, False, "software"):
        raise InvalidArgumentError(_native.EINVAL,
                                   "xperf: counters must be True, False or 'software'")
    flags = {True: 0, False: _native.NO_COUNTERS, "software": _native.NO_HW_COUNTERS}[counters]
    flags |= _native.CAPTURE_CONTENT if capture_content else 0
    opts = _native.Options(_text(trace_dir, "trace_dir"), _text(session_id, "session_id"), flags)
    _check(_c().xperf_init(ctypes.byref(agent), ctypes.byref(opts)))
    if flush_on_signals:
        _install_signal_flush()


def shutdown():
    """End the session; open turns are written with complete=false."""
    rc = _c().xperf_shutdown()
    if rc not in (0, _native.EWRITE):
        _check(rc)


def start_turn():
    return Turn(_check(_c().xperf_start_turn()))


def end_turn(turn):
    """End the turn and write its file. Returns False when the file could not be written."""
    rc = _c().xperf_end_turn(turn.handle if isinstance(turn, Turn) else int(turn))
    if rc == _native.EWRITE:
        return False
    _check(rc)
    return True


def turn():
    """`with xperf.turn() as t:` starts a turn and ends it on exit."""
    return start_turn()


def stats():
    s = _native.Stats()
    _check(_c().xperf_stats(ctypes.byref(s)))
    return {name: getattr(s, name) for name, _ in _native.Stats._fields_}


def session_dir():
    buf = ctypes.create_string_buffer(4096)
    _check(_c().xperf_session_dir(buf, len(buf)))
    return buf.value.decode()


def _flush_on_signal(signum, frame):
    """SIGTERM/SIGHUP with no handler of the host's: write open turns, then die of the signal."""
    try:
        shutdown()
    except XperfError:
        pass
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install_signal_flush():
    # Only where the host left the default (which would kill without writing anything),
    # and only from the main thread (Python's rule for signal handlers).
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) == signal.SIG_DFL:
            signal.signal(sig, _flush_on_signal)
