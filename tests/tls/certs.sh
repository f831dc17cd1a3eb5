#!/usr/bin/env bash
# certs.sh DIR - a test CA and a leaf for localhost/127.0.0.1 signed by it
# (strict verifiers refuse a self-signed leaf), made fresh for each test.
set -euo pipefail
d=$1
mkdir -p "$d"
cd "$d"
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 \
	-subj "/CN=xperf test CA" -addext "basicConstraints=critical,CA:TRUE" \
	-addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout leaf.key -out leaf.csr -subj "/CN=localhost" 2>/dev/null
printf '%s\n' "subjectAltName=DNS:localhost,IP:127.0.0.1" "basicConstraints=CA:FALSE" \
	"extendedKeyUsage=serverAuth" > leaf.ext
openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out leaf.pem \
	-days 2 -extfile leaf.ext 2>/dev/null
