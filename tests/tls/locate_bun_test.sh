#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# locate_bun_test.sh - plaintext of `bun build --compile` executables (static
# BoringSSL, no symbols) from three Bun releases spanning more than a year:
# each makes streaming Anthropic and OpenAI requests to the mock provider
# under `xperf-bpf record --capture-payloads --raw`. Every run replaces the
# same executable path with the next release's build (a self-update), so
# each is located again. Checked by check_locate.py: request and
# response bytes equal the mock's own log of each connection, the located
# file trusted in capture.json, turns and tokens as the mock served them;
# a second run of the last build is located from the disk cache. Then the
# negative: a cache entry with SSL_write and SSL_read swapped (a
# mis-located function) falls back to the ciphertext tier with the message
# and no plaintext record.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
xperf=$(readlink -f "$(dirname "$0")/../../userspace/xperf-bpf")
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/locate_bun.XXXXXX")
trap 'kill $mock 2>/dev/null || true; rm -rf "$tmp"' EXIT
mapfile -t buns < <("$here/bun_releases.sh")
python3 "$here/../../demo/mock_provider.py" --dir "$tmp/mock" --bytes "$tmp/bytes" \
	--log "$tmp/mock.jsonl" &
mock=$!
for _ in $(seq 100); do [ -s "$tmp/mock/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/mock/port")
export XPERF_CACHE_DIR=$tmp/cache NODE_EXTRA_CA_CERTS=$tmp/mock/ca.pem
run() {	# NAME: one traced run of $tmp/agent; its server bytes into $tmp/NAME.bytes
	"$xperf" record -q --capture-payloads --raw "$tmp/$1.jsonl" -o "$tmp/$1" \
		-- "$tmp/agent" "$port" 2> "$tmp/$1.err" || { cat "$tmp/$1.err" >&2; exit 1; }
	mv "$tmp/bytes" "$tmp/$1.bytes"
	mkdir "$tmp/bytes"
}
names=()
for bun in "${buns[@]}"; do
	v=$("$bun" --version)
	(cd "$tmp" && "$bun" build --compile "$here/client_llm.js" --outfile "agent.new" > /dev/null)
	mv "$tmp/agent.new" "$tmp/agent"	# a self-update: a new inode at the same path
	run "bun-$v"
	names+=("bun-$v")
done
run cached
# The mis-located function: the cache names SSL_read as SSL_write and back.
entry=$(ls -t "$tmp"/cache/*.loc | head -1)	# the last build's
sed -i -e 's/^SSL_write /SSL_tmp /' -e 's/^SSL_read /SSL_write /' -e 's/^SSL_tmp /SSL_read /' "$entry"
run swapped
python3 "$here/check_locate.py" "$tmp" --mock "${names[@]}" --cached cached --replaced \
	--negative swapped
