// SPDX-License-Identifier: MIT
// client_llm.js PORT [PAUSE_MS] - an agent's LLM calls, for `bun build
// --compile`: a streaming Anthropic Messages request, then a streaming
// OpenAI Chat Completions request (each PAUSE_MS after the one before, the
// first PAUSE_MS after start), on one keep-alive connection, each answer
// read to its end. Trusts the mock provider's CA
// through NODE_EXTRA_CA_CERTS.
const [port, pause] = process.argv.slice(2);
const calls = [
  ['/v1/messages', { model: 'claude-test', max_tokens: 64, stream: true,
                     messages: [{ role: 'user', content: 'hello' }] }],
  ['/v1/chat/completions', { model: 'gpt-test', stream: true,
                             messages: [{ role: 'user', content: 'hello again' }] }],
];
for (const [path, body] of calls) {
  if (pause) await Bun.sleep(Number(pause));
  const res = await fetch(`https://localhost:${port}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200 || text.length === 0) process.exit(2);
}
