#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bun_releases.sh - print the paths of the Bun executables the locator tests
# use, one a line: three releases spanning more than 12 months (1.1.30 of
# October 2024, 1.2.20 of August 2025, and the pinned third_party/npm one),
# installed from npm by version into $XPERF_BUN_DIR (default
# /var/cache/xperf/bun) when missing. setup.sh runs it once.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
dir=${XPERF_BUN_DIR:-/var/cache/xperf/bun}
for v in 1.1.30 1.2.20; do
	exe=$dir/$v/node_modules/bun/bin/bun.exe
	if [ ! -x "$exe" ]; then
		mkdir -p "$dir/$v"
		(cd "$dir/$v" && npm install --no-audit --no-fund --silent "bun@$v" >&2)
	fi
	echo "$exe"
done
pinned=$(readlink -f "$here/../../third_party/npm/node_modules/bun/bin/bun.exe" 2>/dev/null || true)
[ -x "$pinned" ] || { echo "bun_releases: $pinned missing: run ./setup.sh" >&2; exit 1; }
echo "$pinned"
