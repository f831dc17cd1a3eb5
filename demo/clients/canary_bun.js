// SPDX-License-Identifier: MIT
// canary_bun.js PORT CA --token SECRET - built into a single-file executable by
// canary_test.sh (bun build --compile): one Anthropic call whose key is the secret.
const [port, ca, , key] = process.argv.slice(2);
process.env.NODE_EXTRA_CA_CERTS = ca;
const res = await fetch(`https://localhost:${port}/v1/messages`, {
	method: 'POST',
	headers: { 'x-api-key': key, 'content-type': 'application/json' },
	body: JSON.stringify({ model: 'mock-sonnet', max_tokens: 16,
			       messages: [{ role: 'user', content: key }] }),
	tls: { ca: await Bun.file(ca).text() },
});
await res.text();
