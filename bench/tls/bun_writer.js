// SPDX-License-Identifier: MIT
// bun_writer.js PORT N - N writes of 100 bytes through Bun's node:tls
// (BoringSSL's SSL_write, located when traced: built with `bun build
// --compile`) to the sink, each awaited until flushed so that one write is
// one SSL_write; prints CPU ns and wall ns per call, like ssl_bench.c.
import tls from 'node:tls';

const [port, n] = process.argv.slice(2).map(Number);
const sock = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false });
await new Promise((ok) => sock.once('secureConnect', ok));
const buf = Buffer.alloc(100);
const write = () => new Promise((ok) => sock.write(buf, ok));
await write();	// warm-up outside the timing
const c0 = process.cpuUsage(), w0 = process.hrtime.bigint();
for (let i = 0; i < n; i++) await write();
const c = process.cpuUsage(c0), w = process.hrtime.bigint() - w0;
console.log(`${Math.round((c.user + c.system) * 1000 / n)} ${Number(w / BigInt(n))}`);
sock.destroy();
