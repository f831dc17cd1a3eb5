# shellcheck shell=bash
# sink.sh - sourced by the bench/tls scripts (from the repository root): makes
# $tmp (removed at exit), test certificates and the Go TLS sink (sink.go), starts
# the sink and sets $port.
tmp=$(mktemp -d)
trap 'kill $sink 2>/dev/null || true; rm -rf "$tmp"' EXIT
tests/tls/certs.sh "$tmp/certs"
(cd "$tmp" && cp "$OLDPWD/bench/tls/sink.go" . &&
	GOCACHE=$tmp/gocache GO111MODULE=off go build -o sink sink.go)
"$tmp/sink" "$tmp/certs/leaf.pem" "$tmp/certs/leaf.key" > "$tmp/port" &
sink=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
