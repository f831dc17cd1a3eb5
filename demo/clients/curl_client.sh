#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# curl_client.sh PORT CA - three LLM calls with curl (libssl: the plaintext tier):
# Anthropic streaming, OpenAI Chat streaming, OpenAI Chat not streamed.
set -euo pipefail
port=$1 ca=$2
url=https://localhost:$port
curl -sS --fail-with-body --cacert "$ca" "$url/v1/messages" -H 'x-api-key: sk-mock-not-a-secret' \
	-H 'content-type: application/json' \
	-d '{"model":"mock-sonnet","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hi"}]}' >/dev/null
curl -sS --fail-with-body --cacert "$ca" "$url/v1/chat/completions" -H 'authorization: Bearer sk-mock' \
	-H 'content-type: application/json' \
	-d '{"model":"mock-gpt","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}' >/dev/null
curl -sS --fail-with-body --cacert "$ca" "$url/v1/chat/completions" -H 'authorization: Bearer sk-mock' \
	-H 'content-type: application/json' \
	-d '{"model":"mock-gpt","messages":[{"role":"user","content":"hi"}]}' >/dev/null
