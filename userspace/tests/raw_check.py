#!/usr/bin/env python3
"""raw_check.py RAW.jsonl EXPR [NAME=VALUE...] - evaluate a Python expression
over the records of an xperf-bpf --raw dump and fail (exit 1, printing the
expression and the values it saw) unless it is true.

Names available in EXPR: recs (all records but the last), end (the final
{"type": "end"} record), of(type) (records of a type), first(type, **fields),
and every NAME=VALUE given (ints when they parse as ints).
"""
import json
import sys


def main():
    raw, expr, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(raw) as f:
        lines = [json.loads(line) for line in f]
    if not lines or lines[-1].get("type") != "end":
        sys.exit("raw_check: %s does not end with an 'end' record" % raw)
    recs, end = lines[:-1], lines[-1]

    def of(t):
        return [r for r in recs if r["type"] == t]

    def first(t, **kw):
        for r in of(t):
            if all(r.get(k) == v for k, v in kw.items()):
                return r
        return None

    env = {"recs": recs, "end": end, "of": of, "first": first}
    for kv in extra:
        k, v = kv.split("=", 1)
        try:
            env[k] = int(v)
        except ValueError:
            try:
                env[k] = float(v)
            except ValueError:
                env[k] = v
    if not eval(expr, env):  # noqa: S307 - test expressions written in this repo
        ctx = {k: v for k, v in env.items()
               if k not in ("recs", "of", "first") and not k.startswith("__")}
        sys.exit("raw_check: false: %s\n  with %s" % (expr, json.dumps(ctx)[:2000]))


if __name__ == "__main__":
    main()
