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
# a second run of the last build is located from the disk cache; the LLM
# spans equal, but for times, those of python3 on libssl making the same
# requests (client_llm.py); an executable replaced while a process runs it
# (a self-update): the running process keeps its probes, the next one from
# the same path is located anew, both byte for byte. Then the
# negative: a cache entry with SSL_write and SSL_read swapped (a
# mis-located function) falls back to the ciphertext tier with the message
# and no plaintext record.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
xperf=$(readlink -f "$(dirname "$0")/../../cli/xperf-bpf")
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/locate_bun.XXXXXX")
trap 'kill $mock ${agent:-} 2>/dev/null || true; rm -rf "$tmp"' EXIT
mapfile -t buns < <("$here/bun_releases.sh")
python3 "$here/../../demo/mock_provider.py" --dir "$tmp/mock" --bytes "$tmp/bytes" \
	--log "$tmp/mock.jsonl" &
mock=$!
for _ in $(seq 100); do [ -s "$tmp/mock/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/mock/port")
export XPERF_CACHE_DIR=$tmp/cache NODE_EXTRA_CA_CERTS=$tmp/mock/ca.pem
run() {	# NAME [CMD...]: one traced run (of $tmp/agent); server bytes into $tmp/NAME.bytes
	local name=$1
	shift
	[ $# -gt 0 ] || set -- "$tmp/agent" "$port"
	"$xperf" record -q --capture-payloads --raw "$tmp/$name.jsonl" -o "$tmp/$name" \
		-- "$@" 2> "$tmp/$name.err" || { cat "$tmp/$name.err" >&2; exit 1; }
	mv "$tmp/bytes" "$tmp/$name.bytes"
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
# A self-update under a running agent: the old build runs (calls at 2 s and
# 4 s) while its file is replaced at 1 s by the newest build, which then runs
# from the same path (calls at 0.5 s and 1 s; the pauses keep both clear of
# the attach at exec, which a child of a traced shell races): the first
# keeps its probes, the second is located anew. Then `attach --pid` to a
# running agent between its two calls on one connection: exact from there.
(cd "$tmp" && "${buns[1]}" build --compile "$here/client_llm.js" --outfile old > /dev/null &&
 "${buns[2]}" build --compile "$here/client_llm.js" --outfile new > /dev/null && mv old agent)
run update sh -c '"$1/agent" "$2" 2000 & sleep 1; mv "$1/new" "$1/agent"; "$1/agent" "$2" 500; wait' \
	sh "$tmp" "$port"
# attach --pid to the running agent between its two calls on one connection.
"$tmp/agent" "$port" 3000 &
agent=$!
sleep 3.5
"$xperf" attach --pid $agent --duration 8 -q --capture-payloads --raw "$tmp/attach.jsonl" \
	-o "$tmp/attach" 2> "$tmp/attach.err" || { cat "$tmp/attach.err" >&2; exit 1; }
wait $agent
mv "$tmp/bytes" "$tmp/attach.bytes"
mkdir "$tmp/bytes"
# The mis-located function: the cache names SSL_read as SSL_write and back.
entry=$(ls -t "$tmp"/cache/*.loc | head -1)	# the last build's
sed -i -e 's/^SSL_write /SSL_tmp /' -e 's/^SSL_read /SSL_write /' -e 's/^SSL_tmp /SSL_read /' "$entry"
run swapped
run python python3 "$here/client_llm.py" "$port" "$tmp/mock/ca.pem"
python3 "$here/check_locate.py" "$tmp" --mock "${names[@]}" --cached cached --replaced \
	--negative swapped --reference python --per-process update --attach attach
