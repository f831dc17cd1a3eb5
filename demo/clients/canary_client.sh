#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CANARY=SECRET canary_client.sh PORT CA BUN_EXE - the secret through every channel a
# credential or a prompt reaches xperf by, with four TLS clients (canary_test.sh):
#   curl:    x-api-key, "authorization:" (no space), Proxy-Authorization, a cookie,
#            -u user:pass, the URL's query and userinfo, the body (-d);
#   python3: the key from the environment (env KEY=secret on the command line),
#            sent as a header, a query parameter, a cookie and in the body;
#   node:    --api-key SECRET on its command line, sent as Authorization: Bearer;
#   bun:     a single-file executable (BoringSSL, ciphertext tier) given --token;
#   curl --http2 (to H2_PORT, clients/h2_server.js): x-api-key and the query in HPACK
#            (Huffman-coded: no grep finds them), the body in a DATA frame.
set -uo pipefail
# the secret comes in the environment: a bare argument is no secret anyone can tell
port=$1 ca=$2 c=$CANARY bun_exe=$3 h2_port=$4
url=https://localhost:$port
body='{"model":"mock-sonnet","max_tokens":16,"messages":[{"role":"user","content":"'$c'"}]}'
curl -sS --cacert "$ca" -o /dev/null -H "x-api-key: $c" -H "authorization:$c" \
	-H "Proxy-Authorization: $c" -b "session=$c" -H 'content-type: application/json' \
	"https://bob:$c@localhost:$port/v1/messages?key=$c" -d "$body"
curl -sS --cacert "$ca" -o /dev/null -u "bob:$c" "$url/v1/messages?api_key=$c" \
	--data-raw "$body"
env "ANTHROPIC_API_KEY=$c" python3 -c '
import http.client, json, os, ssl, sys
k = os.environ["ANTHROPIC_API_KEY"]
c = http.client.HTTPSConnection("localhost", int(sys.argv[1]),
                                 context=ssl.create_default_context(cafile=sys.argv[2]))
body = json.dumps({"model": "mock-sonnet", "max_tokens": 16,
                   "messages": [{"role": "user", "content": k}]})
c.request("POST", "/v1/messages?key=" + k, body,
          {"x-api-key": k, "Cookie": "s=" + k, "content-type": "application/json"})
c.getresponse().read()
' "$port" "$ca"
node -e '
const https = require("https"), fs = require("fs");
const [port, ca, , key] = process.argv.slice(1);
const req = https.request({ host: "localhost", port, path: "/v1/messages", method: "POST",
	ca: fs.readFileSync(ca), headers: { authorization: "Bearer " + key,
	"content-type": "application/json" } }, (res) => res.resume());
req.end(JSON.stringify({ model: "mock-sonnet", max_tokens: 16,
	messages: [{ role: "user", content: key }] }));
' "$port" "$ca" --api-key "$c"
[ -x "$bun_exe" ] && "$bun_exe" "$port" "$ca" --token "$c"
curl -sS --http2 --cacert "$ca" -o /dev/null -H "x-api-key: $c" \
	-H 'content-type: application/json' "https://localhost:$h2_port/v1/messages?key=$c" -d "$body"
exit 0
