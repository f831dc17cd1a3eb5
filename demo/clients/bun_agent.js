// SPDX-License-Identifier: MIT
// bun_agent.js PORT LOG - sample_agent.py --fidelity as a `bun build --compile` executable
// (BoringSSL linked in, as agent CLIs ship): a session id header, HEAD and GET probes
// and a token count (POST /v1/messages/count_tokens),
// housekeeping processes of its own each turn (some failing), tools run through a
// sandbox wrapper that re-execs this executable (/proc/self/exe) before
// `bash -c <long prologue> CMD`, compressed request bodies (gzip, zstd), compressed
// answers (fetch decodes them), a side request beside the main call of turn 3. It
// logs what it did as JSON lines, as sample_agent.py does (check_fidelity.py reads
// both). Against mock_provider.py --scenario fidelity; trusts NODE_EXTRA_CA_CERTS.
import { appendFileSync } from 'node:fs';

const PROLOGUE = Array.from({ length: 30 }, (_, i) =>
	`export XPERF_SANDBOX_${String(i).padStart(2, '0')}=${'x'.repeat(40)}\n`).join('');
const HOUSEKEEPING = [['git', '-C', '/', 'rev-parse', '--show-toplevel'], ['sh', '-c', 'rg --version'],
	['getconf', 'LONG_BIT'], ['sh', '-c', 'ps aux | grep -c bun_agent']];
const SYSTEM = 'You are a careful coding agent. Use the bash tool to inspect the machine, then ' +
	'answer briefly.\n\nRepository:\n' + Array.from({ length: 16 }, (_, i) => `src/file_${i}.ts`).join('\n');
const TOOLS = [{ name: 'bash', description: 'run a bash command',
	input_schema: { type: 'object', properties: { command: { type: 'string' } } } }];
const CODINGS = { 2: 'gzip', 3: 'zstd' };

// The sandbox wrapper's second stage: set up (nothing here), then run the shell.
if (process.argv[2] === '--sandbox-exec') {
	const p = Bun.spawnSync(process.argv.slice(3), { stdout: 'inherit', stderr: 'inherit' });
	process.exit(p.exitCode ?? 1);
}

const [port, logPath] = process.argv.slice(2);
const base = `https://localhost:${port}`;
const session = crypto.randomUUID();
let turn = 0;

function log(event, fields) {
	const rec = { event, turn, t_ns: Number(Bun.nanoseconds()), ...fields };
	appendFileSync(logPath, JSON.stringify(rec) + '\n', { mode: 0o600 });
}

function headers(extra) {
	return { 'content-type': 'application/json', 'x-api-key': 'sk-mock-not-a-secret',
		'anthropic-version': '2023-06-01', 'x-claude-code-session-id': session,
		'accept-encoding': 'gzip, br, zstd', ...extra };
}

// Before the first model call: a reachability probe, the model list, a token count
// carrying the whole prompt (no model call either).
async function probes(prompt) {
	for (const [method, path, body] of [['HEAD', '/'], ['GET', '/v1/models'],
		['POST', '/v1/messages/count_tokens', JSON.stringify(prompt)]]) {
		const res = await fetch(base + path, { method, body, headers: headers() });
		await res.arrayBuffer();
		log('probe', { method, path, status: res.status });
	}
}

function housekeeping() {
	for (const argv of HOUSEKEEPING) {
		const p = Bun.spawnSync(argv, { cwd: '/', stdout: 'pipe', stderr: 'pipe' });
		log('housekeeping', { argv, exit: p.exitCode });
	}
}

// The SSE answer (fetch has decoded its content coding): text, the tool call, stop reason.
async function parse(res) {
	const ans = { text: '', tool: null, json: '', stop: null };
	const dec = new TextDecoder();
	let buf = '', event = '';
	for await (const piece of res.body) {
		buf += dec.decode(piece, { stream: true });
		const lines = buf.split('\n');
		buf = lines.pop();
		for (const line of lines) {
			if (line.startsWith('event: ')) event = line.slice(7);
			if (!line.startsWith('data: ')) continue;
			const d = JSON.parse(line.slice(6));
			if (event === 'content_block_start' && d.content_block.type === 'tool_use')
				ans.tool = d.content_block;
			else if (event === 'content_block_delta')
				d.delta.partial_json !== undefined ? (ans.json += d.delta.partial_json) :
					(ans.text += d.delta.text || '');
			else if (event === 'message_delta')
				ans.stop = d.delta.stop_reason;
		}
	}
	if (ans.tool)
		ans.tool.input = JSON.parse(ans.json);
	return ans;
}

async function call(body, side) {
	const coding = CODINGS[turn];
	let data = JSON.stringify(body);
	if (coding)
		data = coding === 'gzip' ? Bun.gzipSync(data) : Bun.zstdCompressSync(data);
	const t0 = Number(Bun.nanoseconds());
	const res = await fetch(base + '/v1/messages', { method: 'POST', body: data,
		headers: headers(coding ? { 'content-encoding': coding } : {}) });
	const ans = await parse(res);
	log('llm', { status: res.status, attempt: 0, side, t_send_ns: t0, t_done_ns: Number(Bun.nanoseconds()) });
	return ans;
}

function runTool(tool) {
	const argv = ['/proc/self/exe', '--sandbox-exec', '/bin/bash', '-c', PROLOGUE + tool.input.command];
	const t0 = Number(Bun.nanoseconds());
	const p = Bun.spawnSync(argv, { stdout: 'pipe', stderr: 'pipe' });
	log('tool', { argv, exit: p.exitCode, start_ns: t0, end_ns: Number(Bun.nanoseconds()),
		tool_id: tool.id, command: tool.input.command });
	return { type: 'tool_result', tool_use_id: tool.id, content: p.stdout.toString() + p.stderr.toString(),
		is_error: p.exitCode !== 0 };
}

const history = [{ role: 'user', content: 'Which OS is this machine, and is it busy?' }];
log('session', { id: session });
await probes({ model: 'mock-sonnet', system: SYSTEM, tools: TOOLS, messages: history });
for (turn = 1; turn <= 10; turn++) {
	housekeeping();
	const body = { model: 'mock-sonnet', max_tokens: 16, stream: true, system: SYSTEM, tools: TOOLS,
		messages: history };
	const side = turn === 3 ? new Promise((done) => setTimeout(() => done(call({ model: 'mock-haiku',
		max_tokens: 16, stream: true, system: SYSTEM,
		messages: [{ role: 'user', content: 'Title for this session?' }] }, true)), 50)) : null;
	const ans = await call(body, false);
	await side;
	const blocks = [{ type: 'text', text: ans.text }];
	if (ans.tool)
		blocks.push({ type: 'tool_use', id: ans.tool.id, name: 'bash', input: ans.tool.input });
	history.push({ role: 'assistant', content: blocks });
	log('answer', { stop: ans.stop });
	if (!ans.tool)
		break;
	history.push({ role: 'user', content: [runTool(ans.tool)] });
}
log('done', { turns: Math.min(turn, 10) });
