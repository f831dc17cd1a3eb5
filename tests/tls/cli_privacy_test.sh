#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cli_privacy_test.sh - the tls module inside `xperf-bpf record --raw`, end to
# end, with a python3 client whose request carries an Authorization header:
#   default:             tls_data records with exact lengths and positions, the
#                        SNI, and no payload text and no credential anywhere;
#   --capture-payloads:  the payloads (text, or base64 where not UTF-8),
#                        concatenated by position, are exactly the server's
#                        bytes with the credential value redacted.
# Both raw files are valid UTF-8 JSON lines, mode 0600.
set -euo pipefail
here=$(dirname "$0")
xperf=$(readlink -f "$here/../../cli/xperf-bpf")
source "$here/server.sh" tlscli
client=(python3 "$here/client.py" "$port" "$tmp/certs/ca.pem" 20000 3000)
"$xperf" record -q --raw "$tmp/meta.jsonl" -- "${client[@]}"
"$xperf" record -q --capture-payloads --raw "$tmp/full.jsonl" -- "${client[@]}"
sleep 0.2
python3 - "$tmp" "$here" <<'PY'
import json, os, stat, sys
tmp = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from raw_payloads import payload, redacted, server_conns
errs = []
ins = server_conns(tmp, 2)
for run, path in (("meta", ins[0]), ("full", ins[1])):
    raw = os.path.join(tmp, run + ".jsonl")
    text = open(raw, encoding="utf-8").read()	# must be valid UTF-8
    if stat.S_IMODE(os.stat(raw).st_mode) != 0o600:
        errs.append("%s: mode %o" % (run, stat.S_IMODE(os.stat(raw).st_mode)))
    if "not-a-real-key" in text:
        errs.append("%s: the credential was written" % run)
    recs = [json.loads(l) for l in text.splitlines()]
    data = [r for r in recs if r["type"] == "tls_data" and r["dir"] == "write"]
    want = open(path, "rb").read()
    total = sum(r["call_len"] for r in data if r["offset"] == 0)
    if total != len(want) or sorted(r["pos"] for r in data)[0] != 0:
        errs.append("%s: %d plaintext bytes written, server got %d" % (run, total, len(want)))
    if not any(r["type"] == "sock_sni" and r.get("sni") == "localhost" for r in recs):
        errs.append("%s: no SNI localhost" % run)
    has = [("payload" in r or "payload_base64" in r) for r in data]
    if run == "meta" and any(has):
        errs.append("meta: payload text without --capture-payloads")
    if run == "full":
        got = payload(data)
        exp = redacted(want)
        if got != exp or exp == want:
            errs.append("full: payloads differ from the redacted server bytes")
for e in errs:
    print("FAIL:", e)
print("cli privacy: %d error(s)" % len(errs))
sys.exit(1 if errs else 0)
PY
