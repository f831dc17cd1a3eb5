#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# canary_test.sh - no credential and no prompt in any byte xperf writes (root):
# one secret goes through every channel (headers in several spellings, a cookie,
# the URL's query and userinfo, the request body, argv options, an env-style
# KEY=secret argument) with curl, python3, node and a bun single-file executable
# against the mock provider, and with curl over HTTP/2 (HPACK: the query and the key
# Huffman-coded) against clients/h2_server.js (clients/canary_client.sh), traced by `xperf-bpf record
# --raw`; then exported (chrome, otlp), analyzed (json, html), reported by `fleet
# report` and scraped from `fleet serve`. Every file and the metrics are grepped for
# the secret; the secret must have been seen (turns with a redacted url.path, exec
# records of all four clients with redacted argv), and every file written is 0600.
# With --capture-payloads the secret may be in request bodies (kept on purpose) and
# nowhere else.
set -uo pipefail
run=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/${TEST_WORKSPACE:-xperf}
src=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
xperf=$run/cli/xperf bpf=$run/cli/xperf-bpf demo=$run/demo
bun=${XPERF_BUN:-$src/third_party/npm/node_modules/bun/bin/bun.exe}
tmp=${TEST_TMPDIR:-$(mktemp -d)}/canary
rm -rf "$tmp" && mkdir -p "$tmp/mock" "$tmp/x"
secret="LEAKME$$x${RANDOM}canary"
fails=0 pids=()
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null' EXIT

[ -x "$bun" ] || { echo "FAIL: no bun at $bun (./setup.sh --deps-only)"; exit 1; }
(cd "$tmp" && cp "$demo/clients/canary_bun.js" . &&
	"$bun" build --compile canary_bun.js --outfile canary_bun >/dev/null) || fail "bun build"
python3 "$demo/mock_provider.py" --dir "$tmp/mock" --scenario simple --log "$tmp/mock.jsonl" &
pids+=($!)
for _ in $(seq 200); do [ -f "$tmp/mock/port" ] && break; sleep 0.05; done
port=$(cat "$tmp/mock/port")
node "$demo/clients/h2_server.js" "$tmp/mock" &
pids+=($!)
for _ in $(seq 200); do [ -f "$tmp/mock/h2port" ] && break; sleep 0.05; done
h2port=$(cat "$tmp/mock/h2port")

CANARY=$secret XPERF_SESSION_ID=canary "$bpf" record -q -o "$tmp/out" --raw "$tmp/raw.jsonl" \
	-- /bin/bash "$demo/clients/canary_client.sh" "$port" "$tmp/mock/ca.pem" "$tmp/canary_bun" \
	"$h2port" || fail "record"
s=$tmp/out/canary
"$xperf" export --format chrome -o "$tmp/x/chrome.json" "$s" || fail "export chrome"
"$xperf" export --format otlp -o "$tmp/x/otlp.json" "$s" || fail "export otlp"
"$xperf" analyze session "$s" -o "$tmp/x/report.json" || fail "analyze json"
"$xperf" analyze session "$s" --format html -o "$tmp/x/report.html" || fail "analyze html"
"$xperf" fleet report "$tmp/out" --format json -o "$tmp/x/fleet.json" || fail "fleet report"
mport=$((20000 + RANDOM % 20000))
"$xperf" fleet serve "$tmp/out" --listen "127.0.0.1:$mport" 2>/dev/null &
pids+=($!)
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$mport/metrics" >"$tmp/metrics.txt" && break
	sleep 0.1; done
[ -s "$tmp/metrics.txt" ] || fail "no metrics from fleet serve"

# not one byte of the secret, anywhere
for f in $(grep -rl -- "$secret" "$tmp/out" "$tmp/raw.jsonl" "$tmp/x" "$tmp/metrics.txt"); do
	fail "$f holds the secret: $(grep -o ".\{40\}$secret.\{0,20\}" "$f" | head -2)"
done
# ...because it was redacted, not because nothing was seen
python3 - "$s" "$tmp/raw.jsonl" <<'PY' || fails=$((fails + 1))
import glob, json, sys
paths = []
for f in glob.glob(sys.argv[1] + "/turn_*.json"):
    for sp in json.load(open(f))["spans"]:
        p = sp.get("attributes", {}).get("url.path")
        if p is not None:
            paths.append(p)
recs = [json.loads(l) for l in open(sys.argv[2])]
argv = [r["argv"] for r in recs if r["type"] == "exec" and "argv" in r]
errs = []
if sum("?key=[REDACTED]" in p or "?api_key=[REDACTED]" in p for p in paths) < 4:
    errs.append("url.path of the calls with a query: %s" % paths)
for tool in ("curl", "env", "node", "canary_bun"):  # env: python3's KEY=secret
    mine = [a for a in argv if a and a[0].endswith(tool)]
    if not mine or not any("[REDACTED]" in " ".join(a) for a in mine):
        errs.append("%s: no exec record with a redacted argv: %s" % (tool, mine))
for e in errs:
    print("FAIL:", e)
sys.exit(1 if errs else 0)
PY
# --capture-payloads keeps request bodies on purpose (the prompt, here the secret as a
# message's content), and nothing else: no header, cookie, query, userinfo or option value
CANARY=$secret XPERF_SESSION_ID=payloads "$bpf" record -q --capture-payloads -o "$tmp/out2" \
	--raw "$tmp/raw2.jsonl" -- /bin/bash "$demo/clients/canary_client.sh" "$port" \
	"$tmp/mock/ca.pem" "$tmp/canary_bun" "$h2port" || fail "record --capture-payloads"
python3 - "$secret" "$tmp/out2" "$tmp/raw2.jsonl" <<'PY' || fails=$((fails + 1))
import os, re, sys
secret, paths = sys.argv[1], sys.argv[2:]
files = [os.path.join(d, f) for p in paths for d, _, fs in os.walk(p) for f in fs] or paths
files += [p for p in paths if os.path.isfile(p)]
body = re.compile(r'content\\?"\s*:\s*\\?"$')  # "content": "SECRET", JSON-escaped or not
bad, kept = [], 0
for f in set(files):
    text = open(f, errors="replace").read()
    for m in re.finditer(re.escape(secret), text):
        if body.search(text[max(0, m.start() - 24):m.start()]):
            kept += 1
        else:
            bad.append("%s: ...%s" % (f, text[max(0, m.start() - 40):m.end()]))
for b in bad[:5]:
    print("FAIL: --capture-payloads wrote the secret outside a body:", b)
if not kept:
    print("FAIL: --capture-payloads kept no request body")
sys.exit(1 if bad or not kept else 0)
PY
# HTTP/2: HPACK Huffman-codes the query and the key, so no grep above can see them in
# --capture-payloads' frames: every HEADERS/CONTINUATION payload of the HTTP/2 streams
# must be zeroed (userspace/h2_scrub.h), the DATA frames (the bodies) kept
python3 - "$tmp/raw2.jsonl" <<'PY' || fails=$((fails + 1))
import base64, json, sys
streams, zeroed = {}, 0
for r in map(json.loads, open(sys.argv[1])):
    if r.get("type") == "tls_data" and "payload_base64" in r:
        streams.setdefault((r["ssl"], r["dir"]), bytearray()).extend(
            base64.b64decode(r["payload_base64"]))
        zeroed += r.get("h2_header_bytes_zeroed", 0)
blocks = data = 0
for (ssl, d), b in streams.items():
    i = 24 if b.startswith(b"PRI * HTTP/2.0") else 0
    h2 = i or d == "read" and (ssl, "write") in streams and streams[(ssl, "write")].startswith(b"PRI")
    while h2 and i + 9 <= len(b):
        n, t = int.from_bytes(b[i:i + 3], "big"), b[i + 3]
        if t in (1, 5, 9):
            blocks += 1
            if any(b[i + 9:i + 9 + n]):
                print("FAIL: an HTTP/2 header block kept in the payload of %s %s" % (ssl, d))
                sys.exit(1)
        data += t == 0 and n > 0
        i += 9 + n
print("HTTP/2: %d header blocks zeroed (%d bytes), %d DATA frames kept" % (blocks, zeroed, data))
sys.exit(0 if blocks >= 2 and zeroed > 0 and data >= 2 else 1)
PY
# every file written is 0600
bad=$(find "$tmp/out" "$tmp/out2" "$tmp/raw.jsonl" "$tmp/raw2.jsonl" "$tmp/x" "$tmp/mock.jsonl" \
	-type f ! -perm 600)
[ -z "$bad" ] || fail "not 0600: $bad"
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
