#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cipher_h2_stream_test.sh - long answers streamed over HTTP/2, traced in the
# ciphertext tier only (`record --no-plaintext`): the control frames a client sends
# while an answer streams (WINDOW_UPDATE, PING ACK) end no exchange
# (assemble/cipher.h, XT_CIPHER_CONTROL_BYTES). Two clients, each making two streamed
# calls on one connection to demo/clients/h2_head_server.py long (the head at once,
# 330 KB of tokens from 300 ms on, a PING halfway):
#   go: a stripped Go client (net/http2: a WINDOW_UPDATE after every 4 KiB read, 75 an
#       answer; its second request's HEADERS a 39-byte record of indexed headers)
#   curl: curl --http2 (nghttp2 with a 32 MiB window: only the PING ACK; a fresh
#       connection whose session tickets may be read between its request's HEADERS
#       and DATA)
# and PINGs while the client waits for an answer due 400 ms after its request
# (receives and sends that are no answer and no request):
#   go-ping, curl-ping: the server PINGs right after reading the request and 150 ms
#       into its think (a front end's BDP and keepalive PINGs), the client ACKs each
#       (go: HEADERS and the first token together; curl: the head at once)
#   go-keepalive: the client PINGs after 150 ms without a frame read (net/http2's
#       ReadIdleTimeout): twice per wait, the server ACKs each at once
#   go-keepalive-pause: the same with 400 ms between the calls (a tool runs): the
#       PINGs and ACKs in that pause end no answer
# check_ground_truth.py against the server's own log: exchanges = calls, the first
# token within 25 ms of the server's write of it and the answer's end within 50 ms (a
# read waits for a CPU on a loaded machine: curl's first token once 18 ms late at load 9
# on 2 cores; a control record taken for a request moves them by hundreds), control
# records = the control frames the server read mid-stream, plus at most 3. Before the rule each WINDOW_UPDATE
# ended the exchange: the Go client's two calls came out as 150 exchanges.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
demo=$here/../../demo
xperf=$(readlink -f "$(dirname "$0")/../../cli/xperf-bpf")
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/cipher_h2.XXXXXX")
h2=
trap '[ -z "$h2" ] || kill $h2 2>/dev/null; rm -rf "$tmp"' EXIT
(cd "$tmp" && cp "$here/client_llm.go" . &&
 GOCACHE=$tmp/gocache GO111MODULE=off GOFLAGS= go build -ldflags='-s -w' -o agent client_llm.go)
"$here/certs.sh" "$tmp/certs"
export XPERF_CACHE_DIR=$tmp/cache
fails=0

run() { # NAME SERVER_ARGS CMD... : the arguments PORT and CA replaced
	local d=$tmp/$1 args=()
	mkdir "$d" && cp "$tmp/certs"/{ca.pem,leaf.pem,leaf.key} "$d"
	# Ahead of the machine's other jobs: a fresh connection's session tickets and SETTINGS
	# sent over 50 ms after the request are taken for the answer (cipher.h, on the tickets),
	# the tier's known failure mode, not this test's subject (4 of 20 runs at load 4.7).
	# shellcheck disable=SC2086 # SERVER_ARGS: words
	nice -n -10 /usr/bin/python3 "$demo/clients/h2_head_server.py" "$d" $2 &
	h2=$!
	for _ in $(seq 200); do [ -s "$d/h2port" ] && break; sleep 0.05; done
	for a in "${@:3}"; do
		case $a in PORT) a=$(cat "$d/h2port") ;; CA) a=$d/ca.pem ;; esac
		args+=("$a")
	done
	XPERF_SESSION_ID=$1 "$xperf" record --quiet --no-plaintext -o "$d/out" -- "${args[@]}" \
		2> "$d/err" || { cat "$d/err" >&2; fails=$((fails + 1)); }
	kill $h2 && wait $h2 || true
	h2=
	echo "== $1"
	python3 "$demo/check_ground_truth.py" --traces "$d/out/$1" --mock "$d/h2.jsonl" \
		--tier ciphertext --tol-ms 25 --decode-tol-ms 50 --end-tol-ms 50 --control-records ||
		fails=$((fails + 1))
}

run go long "$tmp/agent" PORT CA h2 2
run curl long /bin/bash "$demo/clients/curl_h2_client.sh" PORT CA
run go-ping "together think=400 ping=0,150" "$tmp/agent" PORT CA h2 2
run curl-ping "head think=400 ping=0,150" /bin/bash "$demo/clients/curl_h2_client.sh" PORT CA
run go-keepalive "together think=400" "$tmp/agent" PORT CA h2 2 150
run go-keepalive-pause "together think=400" "$tmp/agent" PORT CA h2 2 150 400
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
