// SPDX-License-Identifier: MIT
// agent.js PORT GATE CALLS - bench/daemon's Bun agent, built with `bun build --compile`
// (BoringSSL linked in, no symbols: the locator finds its SSL functions): waits for the
// file GATE, makes one streaming call with fetch (the handshake, the first call's one-off
// costs), prints "warm", waits for GATE.go, makes CALLS streaming calls, reading each
// answer as it streams, and prints its own CPU time over those as JSON. Trusts
// NODE_EXTRA_CA_CERTS.
import { existsSync } from 'fs';

const [port, gate, calls] = [process.argv[2], process.argv[3], Number(process.argv[4])];

async function wait(path) {
	while (!existsSync(path))
		await Bun.sleep(10);
}

async function call(i) {
	const res = await fetch(`https://localhost:${port}/v1/chat/completions`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ model: 'gpt-test', stream: true,
				       messages: [{ role: 'user', content: `bench call ${i}` }] }),
	});
	for await (const chunk of res.body)
		;
	if (res.status !== 200)
		process.exit(2);
}

await wait(gate);
await call(0);
console.log('warm');
await wait(gate + '.go');
const c0 = process.cpuUsage();
for (let i = 1; i <= calls; i++)
	await call(i);
const c = process.cpuUsage(c0);
console.log(JSON.stringify({ cpu_us: c.user + c.system }));
