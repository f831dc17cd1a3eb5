#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# capture_test.sh CLIENT - one real client against tls_server.py, traced by
# tlscap, checked by check_capture.py against the server's byte log.
# CLIENT: curl | python | node | node-per-pid | c | c-dlopen | python-late-lib (these two map
# copies of libssl from a temp dir after exec: probed on XP_EV_MAP_EXEC, mode late) |
# c-truncated | c-overflow | go | bun (the last two:
# socket tier only; bun comes from setup.sh: third_party/npm) | container (curl in
# its own mount namespace, whose libssl.so.3 is another file: found through
# /proc/PID/root when the loader maps it: XP_EV_MAP_EXEC; the server waits 300 ms
# before its ServerHello, as a remote provider's round trip would) | attach (a
# python3 client traced from between its two requests, as `attach --pid` does).
# HOOKS (default auto): the socket tier's hooks (tlscap -S), checked in the summary;
# syscalls also takes the plaintext copy of those older kernels (tlscap -C).
set -euo pipefail
client=$1
hooks=${2:-auto}
here=$(dirname "$0")
tlscap=$(readlink -f "$here/tlscap")
[ "$client" = container ] && export TLS_SERVER_DELAY_MS=300
source "$here/server.sh" tls
mkdir "$tmp/cap"
ca=$tmp/certs/ca.pem
body=$((1024 * 1024))
mode=plaintext
head -c $body /dev/urandom > "$tmp/body"
case $client in
curl)	cmd=(curl -sS --cacert "$ca" --data-binary "@$tmp/body" -H "X-Resp-Bytes: 300000"
	     -H "x-api-key: not-a-real-key" -o /dev/null "https://localhost:$port/curl") ;;
python)	cmd=(python3 "$here/client.py" "$port" "$ca" $body 300000) ;;
node-per-pid)	# uprobes planted in the traced process only (tlscap -P)
	cmd=(node "$here/client.js" "$port" "$ca" $body 300000) ;;
node)	cmd=(node "$here/client.js" "$port" "$ca" $body 300000) ;;
c)	cmd=("$here/tls_client" "$port" "$ca" $body 300000) ;;
c-truncated)
	cmd=("$here/tls_client" "$port" "$ca" $body 300000); mode=truncated ;;
c-overflow)
	cmd=("$here/tls_client" "$port" "$ca" $body 300000); mode=overflow ;;
go)	(cd "$tmp" && cp "$here/client.go" . &&
	 GOCACHE=$tmp/gocache GO111MODULE=off GOFLAGS= go build -o goclient client.go)
	cmd=("$tmp/goclient" "$port" "$ca" 4); mode=timing ;;
bun)	root=$(dirname "$(dirname "$(dirname "$(readlink -f "$here/certs.sh")")")")
	bun=$root/third_party/npm/node_modules/bun/bin/bun.exe
	[ -x "$bun" ] || { echo "no bun at $bun: run ./setup.sh --deps-only" >&2; exit 1; }
	export NODE_EXTRA_CA_CERTS=$ca
	cmd=("$bun" "$(readlink -f "$here/client_bun.js")" "$port" 4); mode=timing ;;
container)
	lib=/lib/x86_64-linux-gnu/libssl.so.3
	cp "$lib" "$tmp/libssl.so.3"
	cmd=(unshare -m sh -c 'mount --bind "$0" "$1" && shift && exec "$@"' "$tmp/libssl.so.3" "$lib"
	     curl -sS --cacert "$ca" --data-binary "@$tmp/body" -H "X-Resp-Bytes: 300000"
	     -o /dev/null "https://localhost:$port/container") ;;
c-dlopen)	# no libssl at exec: renamed copies dlopen'd later from a temp dir
	mkdir "$tmp/lib"
	cp /lib/x86_64-linux-gnu/libssl.so.3 "$tmp/lib/libssl-late.so.3"
	cp /lib/x86_64-linux-gnu/libcrypto.so.3 "$tmp/lib/libcrypto-late.so.3"
	# (its calls wait for the probes: under load they came over 1.5 s after the dlopen)
	export TLS_LIB_DIR=$tmp/lib TLS_DLOPEN_WAIT_MS=500 TLS_WAIT_PROBED=1
	cmd=("$here/tls_client_dlopen" "$port" "$ca" $body 300000); mode=late ;;
python-late-lib)	# `import ssl` maps copies from LD_LIBRARY_PATH (a venv's, conda's)
	mkdir "$tmp/lib"
	cp /lib/x86_64-linux-gnu/libssl.so.3 /lib/x86_64-linux-gnu/libcrypto.so.3 "$tmp/lib"
	cmd=(env LD_LIBRARY_PATH="$tmp/lib" WAIT_PROBED=1 python3 "$here/client.py" "$port" "$ca"
	     $body 300000)
	mode=late ;;
attach)	mode=attach ;;
*)	echo "unknown client $client" >&2; exit 64 ;;
esac
opts=(-S "$hooks")
# the raw syscall hooks' kernels (< 6.4) lack bpf_probe_read_user_dynptr too: their copy path
[ "$hooks" = syscalls ] && opts+=(-C)
[ $mode = timing ] && opts+=(-n)
[ $mode = truncated ] && opts+=(-c 65536)
[ $mode = overflow ] && opts+=(-r 65536)	# 4 chunks fit: a 200 KB call cannot
[ $client = node-per-pid ] && opts+=(-P)
if [ $mode = attach ]; then
	# python3 already mid-connection: attach between its two requests.
	GATE=$tmp/gate python3 "$here/client.py" "$port" "$ca" $body 300000 &
	cli=$!
	for _ in $(seq 100); do [ -e "$tmp/gate.ready" ] && break; sleep 0.1; done
	"$tlscap" -o "$tmp/cap" "${opts[@]}" -p $cli 2> "$tmp/tlscap.log" &
	cap=$!
	for _ in $(seq 100); do grep -q tracing "$tmp/tlscap.log" && break; sleep 0.1; done
	touch "$tmp/gate"
	wait $cli
	wait $cap
	cat "$tmp/tlscap.log" >&2
else
	"$tlscap" -o "$tmp/cap" "${opts[@]}" -- "${cmd[@]}"
fi
sleep 0.2	# let the server finish writing its log
python3 "$here/check_capture.py" "$tmp/cap" "$tmp/log" $mode "$hooks"
