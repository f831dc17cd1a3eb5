#!/usr/bin/env bash
# setup.sh - the first of the README's two commands, run as root on Debian 12:
# installs what is missing (quiet when nothing is), builds everything, then runs
# the main job: `xperf demo` (a demo agent against the local mock LLM provider,
# traced by xperf-bpf, analysed, report printed).
#   ./setup.sh              install + build + demo
#   ./setup.sh --deps-only  install what is missing, nothing else (test.sh uses it)
set -euo pipefail
cd "$(dirname "$0")"

DEBS=(bazel-bootstrap clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libcjson-dev
      libnghttp2-dev libmicrohttpd-dev libssl-dev libclang-rt-14-dev bpftrace libbpf-tools
      linux-perf valgrind golang-go nodejs npm openssl python3 hyperfine)

missing=()
for p in "${DEBS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "setup: installing ${missing[*]}" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# bun: a BoringSSL client without symbols, for the ciphertext-tier tests.
if [ ! -x third_party/npm/node_modules/bun/bin/bun.exe ]; then
	echo "setup: installing bun from npm" >&2
	npm install --silent --prefix third_party/npm bun >/dev/null
fi

# ajv: an independent JSON Schema validator for //schema:schema_ajv_test.
if [ ! -f third_party/npm/node_modules/ajv/dist/2020.js ]; then
	echo "setup: installing ajv from npm" >&2
	npm install --silent --prefix third_party/npm ajv@8 >/dev/null
fi

[ "${1:-}" = "--deps-only" ] && exit 0

bazel build //... 2>&1 | grep -E "^(ERROR|FAIL)" >&2 || true
bazel build //... >/dev/null 2>&1
exec ./bazel-bin/cli/xperf theory --format text
