// SPDX-License-Identifier: MIT
// client_bun.js PORT N - bun (stripped static BoringSSL: no SSL_* symbols)
// for the socket tier: N sequential POSTs with fetch, 150 ms apart, each a
// 20000-byte body and a 50000-byte response. Trusts the test CA through
// NODE_EXTRA_CA_CERTS.
const [port, n] = process.argv.slice(2);
for (let i = 0; i < Number(n); i++) {
  const res = await fetch(`https://localhost:${port}/bun`, {
    method: 'POST',
    body: new Uint8Array(20000),
    headers: { 'X-Resp-Bytes': '50000' },
  });
  const body = await res.arrayBuffer();
  if (body.byteLength !== 50000) process.exit(2);
  await Bun.sleep(150);
}
