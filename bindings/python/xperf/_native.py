# SPDX-License-Identifier: MIT
"""ctypes view of libxperf.so (sdk/xperf.h): loading, structs, error codes.

The library is found, in order, at $XPERF_LIB, next to this package, in the
Bazel runfiles (xperf/sdk/libxperf.so), in a bazel-bin/ above this file, and
last through the dynamic linker's search path. Standard library only.
"""

import ctypes
import ctypes.util
import os

# Error codes of sdk/xperf.h.
EINVAL, ENOINIT, EALREADY, ENOTURN, ENOSPAN, ECLOSED = -1, -2, -3, -4, -5, -6
ETHREAD, EORDER, ELIMIT, ENOMEM, EWRITE, EKIND, ENOTLLM = -7, -8, -9, -10, -11, -12, -13

# enum xperf_attr_type
ATTR_STR, ATTR_INT, ATTR_DOUBLE, ATTR_BOOL, ATTR_STR_ARRAY, ATTR_INT_ARRAY = range(6)

# xperf_options.flags
NO_COUNTERS = 1 << 0
CAPTURE_CONTENT = 1 << 1
NO_HW_COUNTERS = 1 << 2

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


class _Strs(ctypes.Structure):
    _fields_ = [("v", ctypes.POINTER(ctypes.c_char_p)), ("n", ctypes.c_size_t)]


class _Ints(ctypes.Structure):
    _fields_ = [("v", ctypes.POINTER(ctypes.c_int64)), ("n", ctypes.c_size_t)]


class _Value(ctypes.Union):
    _fields_ = [
        ("s", ctypes.c_char_p),
        ("i", ctypes.c_int64),
        ("d", ctypes.c_double),
        ("b", ctypes.c_int),
        ("strs", _Strs),
        ("ints", _Ints),
    ]


class Attr(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char_p), ("type", ctypes.c_int), ("u", _Value)]


class AgentInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("model", ctypes.c_char_p)]


class Options(ctypes.Structure):
    _fields_ = [
        ("trace_dir", ctypes.c_char_p),
        ("session_id", ctypes.c_char_p),
        ("flags", ctypes.c_uint),
    ]


class SpanOpts(ctypes.Structure):
    _fields_ = [
        ("stage", ctypes.c_char_p),
        ("tool_name", ctypes.c_char_p),
        ("llm", ctypes.c_int),
        ("detached", ctypes.c_int),
        ("parent", ctypes.c_int),
        ("attrs", ctypes.POINTER(Attr)),
        ("nattrs", ctypes.c_size_t),
    ]


class Stats(ctypes.Structure):
    _fields_ = [
        ("turns_written", ctypes.c_uint64),
        ("write_failures", ctypes.c_uint64),
        ("dropped_events", ctypes.c_uint64),
        ("misuse", ctypes.c_uint64),
    ]


_ATTRS = (ctypes.POINTER(Attr), ctypes.c_size_t)
# Typed calls. The per-span hot path (xperf_enter, xperf_leave, xperf_llm_token)
# is left untyped: ctypes' default conversions (int -> int, bytes -> char *,
# None -> NULL) are what those take, and argtypes checking doubles the cost
# of a call (measured: 3.3 us against 1.7 us here). The wrappers in
# __init__.py pass only int, bytes and None to them.
_UNTYPED = ("xperf_enter", "xperf_leave", "xperf_llm_token")
_SIGNATURES = {
    "xperf_init": (ctypes.POINTER(AgentInfo), ctypes.POINTER(Options)),
    "xperf_shutdown": (),
    "xperf_start_turn": (),
    "xperf_end_turn": (ctypes.c_int,),
    "xperf_enter_llm": (ctypes.c_int, ctypes.c_char_p) + _ATTRS,
    "xperf_enter_ex": (ctypes.c_int, ctypes.POINTER(SpanOpts)),
    "xperf_leave_llm": (ctypes.c_int, ctypes.c_int) + _ATTRS,
    "xperf_span_set": (ctypes.c_int, ctypes.c_int) + _ATTRS,
    "xperf_mark_fused": (ctypes.c_int, ctypes.c_char_p) + _ATTRS,
    "xperf_mark_waste": (ctypes.c_int, ctypes.c_char_p) + _ATTRS,
    "xperf_stats": (ctypes.POINTER(Stats),),
    "xperf_session_dir": (ctypes.c_char_p, ctypes.c_size_t),
}


def _candidates():
    env = os.environ.get("XPERF_LIB")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "libxperf.so")
    for var in ("RUNFILES_DIR", "TEST_SRCDIR"):
        root = os.environ.get(var)
        if root:
            yield os.path.join(root, "xperf", "sdk", "libxperf.so")
    d = here
    while os.path.dirname(d) != d:
        yield os.path.join(d, "bazel-bin", "sdk", "libxperf.so")
        d = os.path.dirname(d)
    found = ctypes.util.find_library("xperf")
    if found:
        yield found


def load():
    """The loaded library with typed functions; OSError naming where it looked."""
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        lib = ctypes.CDLL(path)
        for name, args in _SIGNATURES.items():
            fn = getattr(lib, name)
            fn.argtypes = args
            fn.restype = ctypes.c_int
        for name in _UNTYPED:
            getattr(lib, name).restype = ctypes.c_int
        lib.xperf_strerror.argtypes = (ctypes.c_int,)
        lib.xperf_strerror.restype = ctypes.c_char_p
        return lib
    raise OSError("xperf: libxperf.so not found (set XPERF_LIB); looked in: " + ", ".join(tried))


def _array_value(key, seq):
    """A list or tuple as a string or integer array attribute (and what keeps it alive)."""
    items = list(seq)
    if all(isinstance(x, str) for x in items):
        buf = (ctypes.c_char_p * max(len(items), 1))(*[x.encode() for x in items])
        a = Attr(key, ATTR_STR_ARRAY)
        a.u.strs = _Strs(buf, len(items))
        return a, buf
    if all(isinstance(x, int) and not isinstance(x, bool) for x in items):
        for x in items:
            _check_int(key, x)
        buf = (ctypes.c_int64 * max(len(items), 1))(*items)
        a = Attr(key, ATTR_INT_ARRAY)
        a.u.ints = _Ints(buf, len(items))
        return a, buf
    raise TypeError("xperf: attribute %r: a list must hold only str or only int" % key.decode())


def _check_int(key, v):
    if not INT64_MIN <= v <= INT64_MAX:
        raise ValueError("xperf: attribute %r: %d does not fit in 64 bits" % (key.decode(), v))


def _value(key, v):
    """One attribute and the Python objects that must outlive the call."""
    if isinstance(v, bool):
        a = Attr(key, ATTR_BOOL)
        a.u.b = int(v)
    elif isinstance(v, int):
        _check_int(key, v)
        a = Attr(key, ATTR_INT)
        a.u.i = v
    elif isinstance(v, float):
        a = Attr(key, ATTR_DOUBLE)
        a.u.d = v
    elif isinstance(v, str):
        b = v.encode()  # kept alive by the caller: the array holds only its address
        a = Attr(key, ATTR_STR)
        a.u.s = b
        return a, b
    elif isinstance(v, (list, tuple)):
        return _array_value(key, v)
    else:
        raise TypeError("xperf: attribute %r: unsupported type %s"
                        % (key.decode(), type(v).__name__))
    return a, None


def attrs(mapping):
    """(array, count, keepalive) for a dict of attributes; None values are skipped."""
    if not mapping:
        return None, 0, None
    if not isinstance(mapping, dict):
        raise TypeError("xperf: attributes must be a dict, not %s" % type(mapping).__name__)
    items, keep = [], []
    for k, v in mapping.items():
        if v is None:
            continue
        if not isinstance(k, str):
            raise TypeError("xperf: attribute keys must be str, not %s" % type(k).__name__)
        key = k.encode()
        a, alive = _value(key, v)
        items.append(a)
        keep.extend([key, alive])
    arr = (Attr * max(len(items), 1))(*items)
    return arr, len(items), keep
