#!/usr/bin/env bash
# capture_test.sh CLIENT - one real client against tls_server.py, traced by
# tlscap, checked by check_capture.py against the server's byte log.
# CLIENT: curl | python | node | c | c-truncated | c-overflow | go | bun (the last two:
# socket tier only; bun comes from setup.sh: third_party/npm) | container (curl in
# its own mount namespace, whose libssl.so.3 is another file: found through
# /proc/PID/root when the connect triggers a rescan; the server waits 300 ms
# before its ServerHello, as a remote provider's round trip would).
set -euo pipefail
client=$1
here=$(dirname "$0")
tlscap=$(readlink -f "$here/tlscap")
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/tls.XXXXXX")
trap 'kill $srv 2>/dev/null || true; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/log" "$tmp/cap"
"$here/certs.sh" "$tmp/certs"
[ "$client" = container ] && export TLS_SERVER_DELAY_MS=300
python3 "$here/tls_server.py" "$tmp/certs" "$tmp/log" > "$tmp/port" &
srv=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
ca=$tmp/certs/ca.pem
body=$((1024 * 1024))
mode=plaintext
head -c $body /dev/urandom > "$tmp/body"
case $client in
curl)	cmd=(curl -sS --cacert "$ca" --data-binary "@$tmp/body" -H "X-Resp-Bytes: 300000"
	     -H "x-api-key: not-a-real-key" -o /dev/null "https://localhost:$port/curl") ;;
python)	cmd=(python3 "$here/client.py" "$port" "$ca" $body 300000) ;;
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
*)	echo "unknown client $client" >&2; exit 64 ;;
esac
opts=()
[ $mode = timing ] && opts=(-n)
[ $mode = truncated ] && opts=(-c 65536)
[ $mode = overflow ] && opts=(-r 65536)	# 4 chunks fit: a 200 KB call cannot
"$tlscap" -o "$tmp/cap" "${opts[@]}" -- "${cmd[@]}"
sleep 0.2	# let the server finish writing its log
python3 "$here/check_capture.py" "$tmp/cap" "$tmp/log" $mode
