// SPDX-License-Identifier: MIT
// h2_server.js DIR - a minimal HTTP/2 mock LLM provider (node's http2 module) for the
// HTTP/2 tier test: TLS with DIR/leaf.pem + DIR/leaf.key (made by mock_provider.py),
// POST /v1/messages answered as an Anthropic SSE stream of 12 tokens, 60 ms to the
// first, 10 ms apart. Writes DIR/h2port once listening and logs, on CLOCK_MONOTONIC
// (process.hrtime), the same JSON lines as mock_provider.py to DIR/h2.jsonl.
'use strict';
const fs = require('fs');
const http2 = require('http2');

const dir = process.argv[2];
const log = fs.openSync(`${dir}/h2.jsonl`, 'a', 0o600);
const now = () => Number(process.hrtime.bigint());
let next = 0;

function rec(event, id, extra) {
	fs.writeSync(log, JSON.stringify({ event, id, t_ns: now(), ...extra }) + '\n');
}

function sse(name, obj) {
	return `event: ${name}\ndata: ${JSON.stringify(obj)}\n\n`;
}

function answer(stream, id, input) {
	const start = sse('message_start', { type: 'message_start', message: { model: 'mock-h2',
		usage: { input_tokens: input, output_tokens: 1 } } });
	const delta = sse('content_block_delta', { type: 'content_block_delta',
		delta: { type: 'text_delta', text: 'w ' } });
	const end = sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' },
		usage: { output_tokens: 12 } }) + sse('message_stop', { type: 'message_stop' });
	let i = 0;
	const send = () => {
		const t = now();
		if (i === 0) {
			stream.respond({ ':status': 200, 'content-type': 'text/event-stream' });
			stream.write(start + delta);
			rec('first_byte_sent', id, { t_ns: t, t_done_ns: now() });
		} else {
			stream.write(delta);
		}
		rec('token_sent', id, { t_ns: t, t_done_ns: now(), i });
		if (++i < 12)
			return setTimeout(send, 10);
		const te = now();
		stream.end(end);
		rec('end', id, { t_ns: te, t_done_ns: now(), status: 200, api: 'anthropic', stream: true,
				 output_tokens: 12 });
	};
	setTimeout(send, 60);
}

const server = http2.createSecureServer({ key: fs.readFileSync(`${dir}/leaf.key`),
					  cert: fs.readFileSync(`${dir}/leaf.pem`) });
server.on('secureConnection', (sock) => sock.setNoDelay(true));
server.on('stream', (stream, headers) => {
	const id = ++next;
	let body = '';
	stream.on('data', (c) => { body += c; });
	stream.on('end', () => {
		rec('request_received', id, { path: headers[':path'], bytes: body.length });
		answer(stream, id, Math.max(1, body.length >> 2));
	});
});
server.listen(0, '127.0.0.1', () => {
	fs.writeFileSync(`${dir}/h2port.tmp`, `${server.address().port}\n`);
	fs.renameSync(`${dir}/h2port.tmp`, `${dir}/h2port`);
});
