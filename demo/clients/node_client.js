// SPDX-License-Identifier: MIT
// node_client.js PORT CA - three LLM calls with node's https module (OpenSSL linked
// into node, SSL_* exported: the plaintext tier) over one keep-alive connection.
'use strict';
const https = require('https');
const fs = require('fs');

const [port, caPath] = process.argv.slice(2);
const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: fs.readFileSync(caPath) });
const calls = require('./calls.json'); // the same three calls as bun_client.js

function call(path, body) {
	return new Promise((resolve, reject) => {
		const req = https.request({ host: 'localhost', port, path, method: 'POST', agent,
			headers: { 'content-type': 'application/json', 'x-api-key': 'sk-mock' } }, (res) => {
			res.on('data', () => {});
			res.on('end', () => (res.statusCode === 200 ? resolve() :
					      reject(new Error(`${path}: HTTP ${res.statusCode}`))));
		});
		req.on('error', reject);
		req.end(JSON.stringify(body));
	});
}

(async () => {
	for (const [path, body] of calls)
		await call(path, body);
	agent.destroy();
})().catch((e) => { console.error(e.message); process.exit(1); });
