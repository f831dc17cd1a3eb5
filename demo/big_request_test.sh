#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# big_request_test.sh - long agent contexts under the default payload cap, on the
# real kernel (root): node sends a ~400 KiB and a 1 MiB request body, each in one
# SSL_write, to the mock provider under `xperf-bpf record`; both are captured whole
# (no record lost, no truncated payload) and the turn names the request's model,
# which the body carries after all its messages. With --payload-cap 64K the same
# 400 KiB request is cut: the turn still validates, counts the truncated payload in
# data_quality and has the exchange (response model, tokens) but no request model.
set -uo pipefail
run=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/${TEST_WORKSPACE:-xperf}
xperf=$run/cli/xperf bpf=$run/cli/xperf-bpf demo=$run/demo
tmp=${TEST_TMPDIR:-$(mktemp -d)}/big
rm -rf "$tmp" && mkdir -p "$tmp"
fails=0 mock=
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
stop_mock() { [ -n "$mock" ] && kill "$mock" 2>/dev/null; wait "$mock" 2>/dev/null; mock=; }
trap stop_mock EXIT

# one NAME BYTES [XPERF-BPF OPTION...]: trace one request of BYTES, print the facts
one() {
	local name=$1 bytes=$2 d=$tmp/$1
	shift 2
	mkdir -p "$d"
	python3 "$demo/mock_provider.py" --dir "$d" --scenario simple --log "$d/mock.jsonl" &
	mock=$!
	for _ in $(seq 200); do [ -f "$d/port" ] && break; sleep 0.05; done
	NODE_EXTRA_CA_CERTS=$d/ca.pem XPERF_SESSION_ID=$name "$bpf" record --quiet -o "$d/out" "$@" \
		-- /usr/bin/node "$demo/clients/big_request.js" "$(cat "$d/port")" "$d/ca.pem" "$bytes" \
		"mock-big-$name" > "$d/client.json" || fail "$name: record failed"
	stop_mock
	"$xperf" validate "$d/out/$name"/turn_*.json > /dev/null || fail "$name: files do not validate"
	python3 - "$d" "$name" <<'PY'
import glob, json, sys
d, name = sys.argv[1:]
client = json.load(open(d + "/client.json"))
cap = json.load(open("%s/out/%s/capture.json" % (d, name)))
turns = [json.load(open(f)) for f in sorted(glob.glob("%s/out/%s/turn_*.json" % (d, name)))]
llm = [s["attributes"] for t in turns for s in t["spans"] if s["stage"] == "llm_inference"]
print(json.dumps({"body": client["bytes"], "messages": client["messages"],
                  "exchanges": len(llm), "dropped": cap["dropped"],
                  "truncated": sum(t["data_quality"]["truncated_payloads"] for t in turns),
                  "request_model": llm[0].get("gen_ai.request.model") if llm else None,
                  "response_model": llm[0].get("gen_ai.response.model") if llm else None}))
PY
}

check() { # check NAME EXPRESSION (python over the facts `f`)
	python3 -c "import json, sys; f = json.load(open(sys.argv[1])); print('%s: %s' % (sys.argv[2], f)); sys.exit(0 if $2 else 1)" \
		"$tmp/$1.facts" "$1" || fail "$1: expected $2"
}

one ctx400k 409600 > "$tmp/ctx400k.facts"
check ctx400k 'f["body"] >= 409600 and f["exchanges"] == 1 and f["dropped"] == 0 and f["truncated"] == 0 and f["request_model"] == "mock-big-ctx400k"'
one ctx1m 1048576 > "$tmp/ctx1m.facts"
check ctx1m 'f["body"] >= 1048576 and f["exchanges"] == 1 and f["dropped"] == 0 and f["truncated"] == 0 and f["request_model"] == "mock-big-ctx1m"'
one capped 409600 --payload-cap 65536 > "$tmp/capped.facts"
check capped 'f["exchanges"] == 1 and f["truncated"] >= 1 and f["request_model"] is None and f["response_model"] == "mock-big-capped"'
[ $fails = 0 ] && echo PASS
exit $((fails > 0))
