#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cli_late_lib_test.sh - `xperf-bpf record` on a client that starts with no
# libssl and later dlopens renamed copies from a temp dir (tls_client_dlopen):
# the tls module probes them on XP_EV_MAP_EXEC, so the payloads concatenated
# by position are the server's bytes in both directions, and capture.json
# counts the late library. The same with the first calls right after the
# dlopen, racing the attach: what is missed is never silent (the capture is
# exact or capture.json counts socket I/O before the probes). Then a command
# that maps no TLS library: map records are seen, nothing is attached.
set -euo pipefail
here=$(dirname "$0")
xperf=$(readlink -f "$here/../../userspace/xperf-bpf")
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/tlslate.XXXXXX")
trap 'kill $srv 2>/dev/null || true; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/log" "$tmp/lib"
"$here/certs.sh" "$tmp/certs"
python3 "$here/tls_server.py" "$tmp/certs" "$tmp/log" > "$tmp/port" &
srv=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
cp /lib/x86_64-linux-gnu/libssl.so.3 "$tmp/lib/libssl-late.so.3"
cp /lib/x86_64-linux-gnu/libcrypto.so.3 "$tmp/lib/libcrypto-late.so.3"
# Calls of at most 27000 bytes: under the default 64 KiB payload cap.
client=("$here/tls_client_dlopen" "$port" "$tmp/certs/ca.pem" 60000 30000)
export TLS_LIB_DIR=$tmp/lib TLS_DLOPEN_WAIT_MS=500
TLS_CALL_WAIT_MS=1500 "$xperf" record -q --capture-payloads --raw "$tmp/late.jsonl" \
	-o "$tmp/late" -- "${client[@]}"
TLS_CALL_WAIT_MS=0 "$xperf" record -q --capture-payloads --raw "$tmp/race.jsonl" \
	-o "$tmp/race" -- "${client[@]}"
"$xperf" record -q -o "$tmp/none" -- sh -c 'ls / > /dev/null'
sleep 0.2
python3 - "$tmp" <<'PY'
import base64, glob, json, os, sys
tmp = sys.argv[1]
errs = []
ins = sorted(glob.glob(os.path.join(tmp, "log", "conn-*.in")), key=os.path.getmtime)
if len(ins) != 2:
    sys.exit("FAIL: server saw %d connections, want 2" % len(ins))


def exact(run, conn):
    """Errors of the payloads of run.jsonl against the server's bytes of conn."""
    recs = [json.loads(l) for l in open(os.path.join(tmp, run + ".jsonl"))]
    bad = []
    for d, path in (("write", conn), ("read", conn[:-3] + ".out")):
        data = sorted((r for r in recs if r["type"] == "tls_data" and r["dir"] == d),
                      key=lambda r: r["pos"])
        got = b"".join(r["payload"].encode() if "payload" in r else
                       base64.b64decode(r["payload_base64"]) for r in data)
        want = open(path, "rb").read()
        if got != want or (data and data[0]["pos"] != 0):
            bad.append("%s %s: captured %d bytes, server %d, not equal"
                       % (run, d, len(got), len(want)))
    return bad


def late_libs(run):
    c = json.load(open(os.path.join(tmp, run, "capture.json")))
    return c["records"], c.get("modules", {}).get("tls", {}).get("late_libs", {})


errs += exact("late", ins[0])
recs, stats = late_libs("late")
if recs.get("map_exec", 0) < 1 or stats.get("attached") != 1:
    errs.append("late library not counted: records %s, late_libs %s" % (recs, stats))
missed = exact("race", ins[1])
recs, race = late_libs("race")
if race.get("attached") != 1 or (missed and not race.get("socket_io_before_probes")):
    errs.append("race: %s silently, late_libs %s" % (missed, race))
none = json.load(open(os.path.join(tmp, "none", "capture.json")))
nstats = none.get("modules", {}).get("tls", {}).get("late_libs", {})
if none["records"].get("map_exec", 0) < 1 or nstats.get("attached") != 0 or \
        nstats.get("socket_io_before_probes") != 0:
    errs.append("no TLS library: records %s, late_libs %s" % (none["records"], nstats))
for e in errs:
    print("FAIL:", e)
print("late lib: %s; racing calls: %s (%s); no TLS lib: %s; %d error(s)"
      % (stats, race, "missed" if missed else "exact", nstats, len(errs)))
sys.exit(1 if errs else 0)
PY
