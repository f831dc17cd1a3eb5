#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rust_client.sh [BIN] - print the path of the rustls client (rust_client/,
# ureq + rustls 0.20 + ring; BIN client_llm_h2: hyper + hyper-rustls over
# HTTP/2; rustls_writer: bench/tls's writer, from the same crates), built stripped, offline, by Debian's cargo and rustc
# (not a rustup toolchain) from Debian's crates in /usr/share/cargo/registry
# (a directory source). Dynamic against glibc only: rustls, ring and ureq are
# Rust crates, linked into the executable. Cached in $XPERF_RUST_DIR (default
# /var/cache/xperf/rust) by the sources' and the compiler's hash, so a test
# builds it once (2-5 minutes on 2 cores). setup.sh runs it once.
set -euo pipefail
src=$(dirname "$(readlink -f "$0")")/rust_client
cargo=/usr/bin/cargo rustc=/usr/bin/rustc
[ -x $cargo ] && [ -x $rustc ] || { echo "rust_client: $cargo missing: run ./setup.sh" >&2; exit 1; }
key=$( (cat "$src/Cargo.toml" "$src"/src/*.rs "$src"/src/bin/*.rs; $rustc -vV) | sha256sum |
	cut -c1-16)
dir=${XPERF_RUST_DIR:-/var/cache/xperf/rust}/$key
exe=$dir/${1:-client_llm_rustls}
if [ ! -x "$dir/client_llm_rustls" ]; then
	mkdir -p "$dir"
	build=$(mktemp -d "$dir/build.XXXXXX")
	trap 'rm -rf "$build"' EXIT
	cp -r "$src/." "$build/src-tree"
	mkdir "$build/home"
	cat > "$build/home/config.toml" <<-CONF
	[source.crates-io]
	replace-with = "debian"
	[source.debian]
	directory = "/usr/share/cargo/registry"
	[net]
	offline = true
	CONF
	CARGO_HOME=$build/home RUSTC=$rustc CARGO_TARGET_DIR=$build/target \
		$cargo build -q --release --manifest-path "$build/src-tree/Cargo.toml" >&2
	for bin in rustls_writer client_llm_h2 client_llm_rustls; do	# the client last: it marks the build done
		cp "$build/target/release/$bin" "$dir/$bin.tmp"
		mv "$dir/$bin.tmp" "$dir/$bin"
	done
fi
echo "$exe"
