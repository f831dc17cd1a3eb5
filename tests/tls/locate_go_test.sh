#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# locate_go_test.sh - plaintext of a stripped Go client (Debian's Go, crypto/tls,
# -ldflags='-s -w': no symbols, .gopclntab kept): streaming Anthropic and
# OpenAI requests over HTTP/1.1 to the mock provider, and an Anthropic
# request over HTTP/2 to h2_server.py (ALPN h2, Debian's python3-h2), under
# `xperf-bpf record --capture-payloads --raw`. check_locate.py: request and
# response bytes equal the server's own log of the connection in both
# directions, the located file trusted, the LLM spans as served and equal,
# but for times, to python3's on libssl making the same requests.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
xperf=$(readlink -f "$(dirname "$0")/../../cli/xperf-bpf")
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/locate_go.XXXXXX")
trap 'kill $mock $h2 2>/dev/null || true; rm -rf "$tmp"' EXIT
(cd "$tmp" && cp "$here/client_llm.go" . &&
 GOCACHE=$tmp/gocache GO111MODULE=off GOFLAGS= go build -ldflags='-s -w' -o agent client_llm.go)
"$here/certs.sh" "$tmp/certs"
mkdir "$tmp/h2.bytes"
/usr/bin/python3 "$here/h2_server.py" "$tmp/certs" "$tmp/h2.bytes" > "$tmp/h2port" &
h2=$!
python3 "$here/../../demo/mock_provider.py" --dir "$tmp/mock" --bytes "$tmp/bytes" \
	--log "$tmp/mock.jsonl" &
mock=$!
for _ in $(seq 100); do [ -s "$tmp/mock/port" ] && [ -s "$tmp/h2port" ] && break; sleep 0.1; done
export XPERF_CACHE_DIR=$tmp/cache
run() {	# NAME CMD...
	"$xperf" record -q --capture-payloads --raw "$tmp/$1.jsonl" -o "$tmp/$1" \
		-- "${@:2}" 2> "$tmp/$1.err" || { cat "$tmp/$1.err" >&2; exit 1; }
}
run go-h1 "$tmp/agent" "$(cat "$tmp/mock/port")" "$tmp/mock/ca.pem"
mv "$tmp/bytes" "$tmp/go-h1.bytes"
mkdir "$tmp/bytes"
run h2 "$tmp/agent" "$(cat "$tmp/h2port")" "$tmp/certs/ca.pem" h2
run python python3 "$here/client_llm.py" "$(cat "$tmp/mock/port")" "$tmp/mock/ca.pem"
python3 "$here/check_locate.py" "$tmp" --mock go-h1 --h2 h2 --reference python
