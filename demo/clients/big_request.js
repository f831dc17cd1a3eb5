// SPDX-License-Identifier: MIT
// big_request.js PORT CA BYTES MODEL - one streamed Anthropic call whose JSON body is
// about BYTES long (a long agent context: many messages), sent by node in one
// SSL_write. "model" comes last in the body, so only a whole capture finds it.
'use strict';
const https = require('https');
const fs = require('fs');

const [port, caPath, bytes, model] = process.argv.slice(2);
const messages = [];
const filler = 'lorem ipsum dolor sit amet '.repeat(40);
for (let size = 0; size < Number(bytes);) {
	const m = { role: messages.length % 2 ? 'assistant' : 'user', content: filler };

	messages.push(m);
	size += JSON.stringify(m).length + 1;
}
const body = JSON.stringify({ max_tokens: 16, stream: true, messages, model });

const req = https.request({ host: 'localhost', port, path: '/v1/messages', method: 'POST',
	ca: fs.readFileSync(caPath),
	headers: { 'content-type': 'application/json', 'x-api-key': 'sk-mock',
		   'content-length': Buffer.byteLength(body) } }, (res) => {
	res.on('data', () => {});
	res.on('end', () => {
		console.log(JSON.stringify({ status: res.statusCode, bytes: Buffer.byteLength(body),
					     messages: messages.length }));
		process.exit(res.statusCode === 200 ? 0 : 1);
	});
});
req.on('error', (e) => { console.error(e.message); process.exit(1); });
req.end(body);
