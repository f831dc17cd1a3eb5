#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# locate.sh [REPEATS] [FILE...] - what the function locator costs per file: the three
# Bun releases of //tests/tls:locate_bun_test (~100 MB each), a stripped Go
# client, the stripped rustls client of //tests/tls:locate_rustls_test, and
# files without a known stack (node: 90 MB, libc), then any FILE given (e.g. an
# agent installed from npm). Each row
# runs xperf-locate REPEATS times as a new process: "first sight" with no
# cache (the analysis), "cached" with the disk cache an earlier run wrote
# (what every later run and every other app built with that Bun costs).
# Page cache warm in both. Prints median and min-max in ms.
set -euo pipefail
R=${1:-7}
cd "$(dirname "$0")/../.."
bazel build -c opt //userspace/locate:xperf-locate >/dev/null 2>&1
loc=$(readlink -f bazel-bin/userspace/locate/xperf-locate)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && cp "$OLDPWD/tests/tls/client_llm.go" . &&
 GOCACHE=$tmp/gocache GO111MODULE=off GOFLAGS= go build -ldflags='-s -w' -o goclient client_llm.go)
files=($(tests/tls/bun_releases.sh) "$tmp/goclient" "$(tests/tls/rust_client.sh)"
       "$(readlink -f "$(command -v node)")"
       /lib/x86_64-linux-gnu/libc.so.6 "${@:2}")
ms() {	# the time column of xperf-locate's line
	"$loc" "$@" | awk -F'\t' '{ sub(/ ms/, "", $6); print $6 }'
}
printf '%-58s %8s %10s %22s %22s\n' file MB found "first sight ms" "cached ms"
for f in "${files[@]}"; do
	first=() cached=()
	"$loc" --cache "$tmp/cache" "$f" > /dev/null
	for _ in $(seq "$R"); do
		first+=("$(ms "$f")")
		cached+=("$(ms --cache "$tmp/cache" "$f")")
	done
	python3 - "$f" "$(stat -c %s "$f")" "$("$loc" "$f" | cut -f2,3)" "${first[*]}" "${cached[*]}" <<'PY'
import statistics, sys
f, size, found, first, cached = sys.argv[1:]
def cell(xs):
    xs = [float(x) for x in xs.split()]
    return "%8.2f (%.2f-%.2f)" % (statistics.median(xs), min(xs), max(xs))
name = f if len(f) <= 58 else "..." + f[-55:]
print("%-58s %8.1f %10s %22s %22s" % (name, int(size) / 1e6, found.replace("\t", "/"),
                                      cell(first), cell(cached)))
PY
done
