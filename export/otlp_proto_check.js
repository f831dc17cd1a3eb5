// SPDX-License-Identifier: MIT
// otlp_proto_check.js - an independent check of `xperf export --format otlp`:
// the file is read into the opentelemetry-proto messages (protobufjs code
// generated from the .proto files, shipped by @opentelemetry/otlp-transformer),
// encoded to protobuf bytes, decoded and written back as OTLP/JSON, and must
// come back equal: a misnamed field is dropped on the way, a mistyped value
// changes (an int64 not written as a decimal string, an id not hex).
// usage: node otlp_proto_check.js OUT.json   (NODE_PATH: third_party/npm/node_modules)
'use strict';
const fs = require('fs');
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js');

const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const ID_BYTES = { traceId: 16, spanId: 8, parentSpanId: 8 };

function fail(msg) {
	console.log('FAIL: ' + msg);
	process.exit(1);
}

// OTLP/JSON writes ids as hex (not proto3 JSON's base64): to bytes for protobufjs.
function toProto(v, key) {
	if (key in ID_BYTES) {
		if (typeof v !== 'string' || !new RegExp(`^[0-9a-f]{${2 * ID_BYTES[key]}}$`).test(v))
			fail(`${key} ${JSON.stringify(v)} is not ${ID_BYTES[key]} bytes of hex`);
		return Buffer.from(v, 'hex');
	}
	if (Array.isArray(v))
		return v.map((e) => toProto(e, ''));
	if (v && typeof v === 'object')
		return Object.fromEntries(Object.entries(v).map(([k, e]) => [k, toProto(e, k)]));
	return v;
}

// Keys sorted, empty lists (defaults) dropped; ids decoded from base64 to hex (decoded side).
function normalize(v, key, base64) {
	if (base64 && key in ID_BYTES && typeof v === 'string')
		return Buffer.from(v, 'base64').toString('hex');
	if (Array.isArray(v))
		return v.map((e) => normalize(e, '', base64));
	if (v && typeof v === 'object') {
		const out = {};
		for (const k of Object.keys(v).sort())
			if (!(Array.isArray(v[k]) && v[k].length === 0))
				out[k] = normalize(v[k], k, base64);
		return out;
	}
	return v;
}

const text = fs.readFileSync(process.argv[2], 'utf8');
const input = JSON.parse(text);
const bytes = Request.encode(Request.fromObject(toProto(input, ''))).finish();
const back = Request.toObject(Request.decode(bytes), { longs: String, enums: Number, bytes: String });
const want = JSON.stringify(normalize(input, '', false));
const got = JSON.stringify(normalize(back, '', true));
if (want !== got) {
	let i = 0;
	while (want[i] === got[i])
		i++;
	fail(`differs after the protobuf round trip at ${i}: ...${want.slice(i - 80, i + 80)}... ` +
	     `became ...${got.slice(i - 80, i + 80)}...`);
}
let spans = 0;
for (const rs of back.resourceSpans)
	for (const ss of rs.scopeSpans)
		spans += ss.spans.length;
console.log(`otlp: ${spans} spans decode as opentelemetry-proto ExportTraceServiceRequest ` +
	    `(${bytes.length} protobuf bytes) and encode back unchanged`);
