#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# locate_fake_test.sh - a binary with BoringSSL's strings and error calls but
# no TLS (userspace/locate/testdata/fake_boringssl.c): the locator finds its
# "SSL_write"/"SSL_read", the self-check refuses them (no TCP send follows its
# "SSL_write": the socket check). xperf-bpf says so once on stderr and in
# capture.json, and delivers no plaintext record.
set -euo pipefail
fake=$(readlink -f "$(dirname "$0")/../../userspace/locate/fake_boringssl")
xperf=$(readlink -f "$(dirname "$0")/../../cli/xperf-bpf")
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/locate_fake.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp "$fake" "$tmp/fake"
XPERF_CACHE_DIR=$tmp/cache "$xperf" record -q --capture-payloads --raw "$tmp/raw.jsonl" \
	-o "$tmp/out" -- "$tmp/fake" 2> "$tmp/err" || true
python3 - "$tmp" <<'PY'
import glob, json, sys
tmp = sys.argv[1]
err = open(tmp + "/err").read()
recs = [json.loads(l) for l in open(tmp + "/raw.jsonl")]
loc = [e for e in json.load(open(glob.glob(tmp + "/out/*/capture.json")[0]))
       ["modules"]["tls"]["located"] if e["file"].endswith("/fake")]
plain = [r for r in recs if r["type"] == "tls_data"]
print("stderr:", err.strip())
print("located:", loc)
bad = []
if err.count("failed the self-check") != 1:
    bad.append("stderr does not say the failure once")
if len(loc) != 1 or loc[0]["status"] != "failed" or not loc[0].get("failed_check"):
    bad.append("capture.json: %s" % loc)
if plain:
    bad.append("%d plaintext records delivered" % len(plain))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
