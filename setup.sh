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
      libnghttp2-dev libbrotli-dev libzstd-dev libmicrohttpd-dev libssl-dev libclang-rt-14-dev bpftrace libbpf-tools
      linux-perf valgrind golang-go openssl python3 hyperfine python3-jsonschema
      prometheus yamllint python3-brotli python3-zstandard python3-h2 chromium
      cargo librust-ureq-dev librust-rustls-dev librust-rustls-pemfile-dev librust-rustls-native-certs-dev
      librust-hyper-rustls-dev librust-hyper-dev librust-h2-dev librust-tokio-dev librust-tokio-macros-dev)

missing=()
for p in "${DEBS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "setup: installing ${missing[*]}" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# node and npm: any install will do (Debian's npm conflicts with NodeSource's nodejs).
if ! command -v npm >/dev/null; then
	echo "setup: installing nodejs npm" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi

# npm packages pinned in third_party/npm/package.json: bun (a BoringSSL client
# without symbols, for the ciphertext-tier tests), ajv (an independent JSON
# Schema validator for //schema:schema_ajv_test), @opentelemetry/otlp-transformer
# (opentelemetry-proto's messages) and speedscope (a trace viewer, run in headless
# chromium), both for //export:export_test.
if [ ! -x third_party/npm/node_modules/bun/bin/bun.exe ] ||
	[ ! -f third_party/npm/node_modules/ajv/dist/2020.js ] ||
	[ ! -f third_party/npm/node_modules/@opentelemetry/otlp-transformer/build/src/generated/root.js ] ||
	[ ! -f third_party/npm/node_modules/speedscope/dist/release/index.html ]; then
	echo "setup: installing npm packages (bun, ajv, otlp-transformer, speedscope)" >&2
	npm install --silent --no-audit --no-fund --prefix third_party/npm >/dev/null
fi
# Older Bun releases for the locator's tests (//tests/tls:locate_bun_test).
tests/tls/bun_releases.sh >/dev/null
# The rustls clients of //tests/tls:locate_rustls_test, built offline from Debian's crates.
tests/tls/rust_client.sh >/dev/null

[ "${1:-}" = "--deps-only" ] && exit 0

log=$(mktemp)
if ! bazel build //... >"$log" 2>&1; then
	grep -E "^ERROR|error:" "$log" | head -20 >&2
	echo "setup: build failed (full log: $log)" >&2
	exit 1
fi
rm -f "$log"
exec ./bazel-bin/cli/xperf demo
