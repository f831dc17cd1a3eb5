// SPDX-License-Identifier: MIT
// bun_client.js PORT - three LLM calls with fetch, compiled by `bun build --compile`
// into a single executable: BoringSSL linked in without symbols, so only the
// ciphertext tier (socket events) sees them. Trusts the CA in NODE_EXTRA_CA_CERTS.
import calls from './calls.json'; // bundled into the executable

const port = process.argv[2];

for (const [path, body] of calls) {
	const res = await fetch(`https://localhost:${port}${path}`, {
		method: 'POST', body: JSON.stringify(body),
		headers: { 'content-type': 'application/json', 'x-api-key': 'sk-mock' },
	});
	await res.text();
	if (res.status !== 200) {
		console.error(`${path}: HTTP ${res.status}`);
		process.exit(1);
	}
}
