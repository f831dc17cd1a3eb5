#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# layering_test.sh - `bazel query` over the whole workspace (a second Bazel
# server with its own output base, so the one running this test is not
# blocked), then layering_check.py: no package depends on or includes a
# higher layer of docs/architecture.md, no package cycle. Local: it reads the
# source tree the script links to.
set -euo pipefail
ws=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
out=${TEST_TMPDIR:-$(mktemp -d)}
cd "$ws"
# the source packages: //... would also walk the bazel-* output links, which
# only the Bazel server that made them knows to skip
all=$(find . -path "./bazel-*" -prune -o -path "./.*" -prune -o -path "*/node_modules" -prune -o \
	-name BUILD -printf "%h\n" | cut -d/ -f2 | grep -v "^\.$" | sort -u | sed 's|.*|//&/...|' |
	paste -sd+ | sed 's/+/ + /g')
bazel --output_base="$out/ob" --max_idle_secs=5 query --noimplicit_deps --notool_deps \
	"let all = $all in let prod = (kind(rule, \$all) except tests(\$all)) except
	 attr(testonly, 1, \$all) in deps(\$prod) intersect \$prod" --output graph \
	>"$out/graph.dot" 2>"$out/query.err" || { cat "$out/query.err"; exit 1; }
python3 "$ws/bazel/layering_check.py" "$ws" "$out/graph.dot"
