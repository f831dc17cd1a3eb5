// SPDX-License-Identifier: MIT
// client.js PORT CA BODY_BYTES RESP_BYTES - node https client for the capture
// tests (node links OpenSSL statically): one POST whose body is written in
// chunks, then a small GET on the same keep-alive agent.
const https = require('https');
const fs = require('fs');
const [port, ca, bodyLen, resp] = process.argv.slice(2);
const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: fs.readFileSync(ca) });
const body = Buffer.alloc(Number(bodyLen), 0).map((_, i) => (i * 17 + 3) % 256);

function request(method, path, headers, chunks, done) {
  const req = https.request({ host: 'localhost', port, method, path, headers, agent }, (res) => {
    let n = 0;
    res.on('data', (d) => { n += d.length; });
    res.on('end', () => done(n));
  });
  for (const c of chunks) req.write(c);
  req.end();
}

const chunks = [];
for (let off = 0, size = 5000; off < body.length; off += size, size = Math.min(size * 2, 200000))
  chunks.push(body.subarray(off, off + size));
request('POST', '/node', { 'Content-Length': body.length, 'X-Resp-Bytes': resp }, chunks, (n) => {
  if (n !== Number(resp)) process.exit(2);
  request('GET', '/node2', { 'X-Resp-Bytes': '4000' }, [], (m) => {
    agent.destroy();
    process.exit(m === 4000 ? 0 : 3);
  });
});
