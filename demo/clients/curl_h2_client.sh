#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# curl_h2_client.sh PORT CA - two streamed Anthropic calls over one HTTP/2 connection
# (curl + libnghttp2 + libssl: HPACK headers and DATA frames in the plaintext tier).
set -euo pipefail
url=https://localhost:$1/v1/messages
body='{"model":"mock-h2","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hi"}]}'
curl -sS --http2 --fail-with-body --cacert "$2" -H 'x-api-key: sk-mock' \
	-H 'content-type: application/json' -d "$body" "$url" -o /dev/null \
	--next --http2 --cacert "$2" -H 'x-api-key: sk-mock' \
	-H 'content-type: application/json' -d "$body" "$url" -o /dev/null
