// SPDX-License-Identifier: MIT
// agent.js PORT GATE CALLS - bench/daemon's Bun agent, built with `bun build --compile`
// (BoringSSL linked in, no symbols: the locator finds its SSL functions): waits for the
// file GATE, makes CALLS streaming calls with fetch, reading each answer as it streams,
// and prints its own CPU time over the calls as JSON. Trusts NODE_EXTRA_CA_CERTS.
import { existsSync } from 'fs';

const [port, gate, calls] = [process.argv[2], process.argv[3], Number(process.argv[4])];
while (!existsSync(gate))
	await Bun.sleep(10);
const c0 = process.cpuUsage();
for (let i = 0; i < calls; i++) {
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
const c = process.cpuUsage(c0);
console.log(JSON.stringify({ cpu_us: c.user + c.system }));
