#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# locate_rustls_test.sh - plaintext of stripped Rust clients on rustls 0.20
# + ring (Debian's crates, built by rust_client.sh): ureq 2.6 making
# streaming Anthropic and OpenAI requests over HTTP/1.1 to the mock provider,
# and hyper + hyper-rustls making an Anthropic request over HTTP/2 to
# h2_server.py (ALPN h2, Debian's python3-h2; the connection moves into
# hyper's task after the preface), each under `xperf-bpf record
# --capture-payloads --raw`. check_locate.py: request
# and response bytes equal the mock's own log of the connection in both
# directions, the located file trusted, the LLM spans as served and equal,
# but for times, to python3's on libssl making the same requests; a second
# run comes from the disk cache. Then the negative: a cache entry with the
# write and read functions swapped (a mis-located function) falls back to
# the ciphertext tier with the message once and no plaintext record.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
xperf=$(readlink -f "$(dirname "$0")/../../cli/xperf-bpf")
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/locate_rustls.XXXXXX")
trap 'kill $mock $h2srv 2>/dev/null || true; rm -rf "$tmp"' EXIT
cp "$("$here/rust_client.sh")" "$tmp/agent"
mkdir "$tmp/h2"	# the HTTP/2 client, also named agent (check_locate.py), its own cache
cp "$("$here/rust_client.sh" client_llm_h2)" "$tmp/h2/agent"
"$here/certs.sh" "$tmp/certs"
mkdir "$tmp/h2.bytes"
/usr/bin/python3 "$here/h2_server.py" "$tmp/certs" "$tmp/h2.bytes" > "$tmp/h2port" &
h2srv=$!
python3 "$here/../../demo/mock_provider.py" --dir "$tmp/mock" --bytes "$tmp/bytes" \
	--log "$tmp/mock.jsonl" &
mock=$!
for _ in $(seq 100); do [ -s "$tmp/mock/port" ] && [ -s "$tmp/h2port" ] && break; sleep 0.1; done
port=$(cat "$tmp/mock/port")
export XPERF_CACHE_DIR=$tmp/cache
trace() {	# NAME CMD...: one traced run
	"$xperf" record -q --capture-payloads --raw "$tmp/$1.jsonl" -o "$tmp/$1" \
		-- "${@:2}" 2> "$tmp/$1.err" || { cat "$tmp/$1.err" >&2; exit 1; }
}
run() {	# NAME CMD...: a traced run against the mock; its bytes into $tmp/NAME.bytes
	trace "$@"
	mv "$tmp/bytes" "$tmp/$1.bytes"
	mkdir "$tmp/bytes"
}
XPERF_CACHE_DIR=$tmp/h2/cache trace h2 "$tmp/h2/agent" "$(cat "$tmp/h2port")" "$tmp/certs/ca.pem"
run rustls "$tmp/agent" "$port" "$tmp/mock/ca.pem"
run cached "$tmp/agent" "$port" "$tmp/mock/ca.pem"
# The mis-located function: the cache names the read function as the write one and back.
entry=$(ls "$tmp"/cache/*.loc)
sed -i -e 's/^SSL_write /SSL_tmp /' -e 's/^SSL_read /SSL_write /' -e 's/^SSL_tmp /SSL_read /' "$entry"
run swapped "$tmp/agent" "$port" "$tmp/mock/ca.pem"
run python python3 "$here/client_llm.py" "$port" "$tmp/mock/ca.pem"
python3 "$here/check_locate.py" "$tmp" --mock rustls --cached cached --h2 h2 \
	--negative swapped --reference python
