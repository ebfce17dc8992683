// The research demo (spec 05) against a running gateway: a local leg over an external report and an
// OpenAI leg whose key is deliberately invalid (the provider rejects it, or cannot be reached
// offline), so the run stops at the human gate; the demo proceeds, and the local synthesis of the
// successful leg and the report is shared. Usage: node scripts/demo-research.mjs (OPENPAW_TOKEN, OPENPAW_API_URL).
const api = process.env.OPENPAW_API_URL ?? 'http://127.0.0.1:3000';
const headers = { authorization: `Bearer ${process.env.OPENPAW_TOKEN}`, 'content-type': 'application/json' };
const call = async (method, path, body) => {
  const response = await fetch(`${api}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : JSON.parse(text) };
};
const waitFor = async (id, statuses, timeoutMs) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status, body } = await call('GET', `/research/${id}`);
    if (status === 200 && statuses.includes(body.status)) return body;
    if (Date.now() > deadline) return body;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};
const legs = (r) => (r.llmResults ?? []).map((l) => `${l.provider}: ${l.status}${l.error ? ` (${l.errorReason}: ${l.error.slice(0, 80)})` : ''}`).join('; ');

await call('PUT', '/research/keys/openai', { apiKey: 'sk-demo-this-key-is-not-valid' });
const report = {
  title: 'Heat pump field notes',
  content:
    'Cold-climate heat pumps kept a coefficient of performance above 2 at -15 °C in a 2023 field study. ' +
    'Gas boilers convert at most 95 percent of the fuel energy into heat. Defrost cycles cost a few percent of the output in humid cold weather. ' +
    'Running costs depend on the ratio of the electricity price to the gas price.',
};
const started = await call('POST', '/research', {
  prompt: 'How efficient are cold-climate heat pumps compared with gas boilers, and what drives their running costs?',
  selectedLlms: ['local', 'openai'],
  synthesisLlm: 'local',
  externalReports: [report],
});
if (started.status !== 202) throw new Error(`POST /research answered ${started.status}: ${JSON.stringify(started.body)}`);
const id = started.body.id;
console.log(`research ${id}: ${started.body.status} — "${started.body.title}"`);
const gate = await waitFor(id, ['awaiting_confirmation', 'failed', 'completed'], 120_000);
console.log(`  ${gate.status}: ${legs(gate)}`);
if (gate.status === 'awaiting_confirmation') {
  console.log(`  ${gate.ui.message}`);
  console.log('  POST /research/:id/confirm {"action":"proceed"}');
  await call('POST', `/research/${id}/confirm`, { action: 'proceed' });
}
const done = await waitFor(id, ['completed', 'failed'], 60_000);
console.log(`  ${done.status}${done.error ? `: ${done.error}` : ''}`);
if (done.synthesizedResult) console.log(done.synthesizedResult.split('\n').slice(0, 8).map((l) => `    ${l}`).join('\n'));
if (done.shareInfo) console.log(`  shared (until ${done.shareInfo.expiresAt}): ${done.shareInfo.url}`);
