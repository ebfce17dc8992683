import { createHmac, generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import { type MessageData, parseEnvelope, ResearchCompleted, ResearchFailed } from '@openpaw/contracts';
import { connectNats } from '@openpaw/messaging';
import { freshDatabase, type NatsServerHandle, privateNatsServer, type RunningPlatform, startPlatformProcesses } from '@openpaw/testing';
import { type LlmWireServer, startAnthropicWireServer, startOpenAiWireServer, type WireAnswer } from '@openpaw/testkit';
import { type Json, ResearchApiClient } from '../research/testing/research-api-client.js';
import { cliEnvironment, runCli } from './testing/openpaw-cli.js';

/**
 * Spec 05 end to end: the gateway, the coordinator and the research service as their own processes
 * from the build, on a real nats-server and PostgreSQL. The research legs reach a local
 * OpenAI-compatible server and a local Anthropic Messages server through the real adapters, with the
 * users' own keys (stored sealed by the gateway, opened by the research service).
 */
const root = process.env['OPENPAW_E2E_ROOT'] ?? join(import.meta.dirname, '../../../..');

const FIELD_STUDY = {
  title: 'Field study 2023',
  content:
    'Cold-climate heat pumps kept a coefficient of performance above 2 at -15 °C in the 2023 field study. ' +
    'Gas boilers convert at most 95 percent of the fuel energy into heat. The study did not cover installation cost.',
};
const PROMPT = 'How efficient are cold-climate heat pumps compared with gas boilers? Include running costs.';
const OPENAI_REPORT =
  'Cold-climate heat pumps keep a coefficient of performance above 2 even at -15 °C [External 1]. ' +
  'Gas boilers convert at most 95 percent of their fuel into heat. Running costs depend on the electricity to gas price ratio.';
const ANTHROPIC_REPORT =
  'Gas boilers convert at most 95 percent of their fuel into heat. ' + 'Heat pumps deliver two to three units of heat per unit of electricity in winter.';

type Script = 'ok' | 'fail' | 'reject';

describe('research through the gateway (spec 05)', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let openai: LlmWireServer;
  let anthropic: LlmWireServer;
  /** What each wire server answers, per user key (each test is its own user). */
  const scripts = new Map<string, Script>();
  let nc: NatsConnection;
  const completedEvents: MessageData<typeof ResearchCompleted>[] = [];
  const failedEvents: MessageData<typeof ResearchFailed>[] = [];

  const answer =
    (report: string) =>
    (apiKey: string | undefined): WireAnswer =>
      scripts.get(apiKey ?? '') === 'fail'
        ? { status: 500, message: 'upstream exploded' }
        : scripts.get(apiKey ?? '') === 'reject'
          ? { status: 401, message: 'Incorrect API key provided' }
          : { text: report };

  beforeAll(async () => {
    const workflows = join(root, 'dist/apps/coordinator/src/workflows/index.js');
    if (existsSync(workflows) && !readFileSync(workflows, 'utf8').includes('researchDefinition')) {
      throw new Error(`the coordinator in ${root}/dist does not register research: rebuild (npm run build), or set OPENPAW_E2E_ROOT to a build that does`);
    }
    openai = await startOpenAiWireServer((r) => answer(OPENAI_REPORT)(r.apiKey));
    anthropic = await startAnthropicWireServer((r) => answer(ANTHROPIC_REPORT)(r.apiKey));
    nats = await privateNatsServer();
    const databaseUrl = await freshDatabase('e2e_research');
    // As deployed: the gateway seals with the public key and cannot open; research alone holds the private key.
    const sealingKeys = generateKeyPairSync('x25519');
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl,
      services: ['coordinator', 'research', 'gateway'],
      serviceEnv: {
        gateway: { OPENPAW_KEY_SEALING_PUBLIC_KEY: sealingKeys.publicKey.export({ type: 'spki', format: 'der' }).toString('base64') },
        research: {
          OPENPAW_KEY_SEALING_PRIVATE_KEY: sealingKeys.privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64'),
          OPENAI_BASE_URL: openai.baseUrl,
          ANTHROPIC_BASE_URL: anthropic.baseUrl,
          OPENPAW_LLM_MAX_ATTEMPTS: '2',
          OPENPAW_RESEARCH_MODELS: JSON.stringify({ openai: 'openai/gpt-4o-mini', anthropic: 'anthropic/claude-haiku-4-5' }),
          // Short waits between webhook attempts.
          OPENPAW_RESEARCH_WEBHOOK_BACKOFF_MS: '200,400',
        },
      },
      // The test-only entrypoint: the webhook receiver of these tests is on loopback.
      entries: { research: 'testing/private-webhooks-main.js' },
    });
    nc = await connectNats({ servers: nats.url, name: 'e2e-research-listener' });
    nc.subscribe(ResearchCompleted.subject, {
      callback: (_, m) => {
        const parsed = parseEnvelope(ResearchCompleted, m.data);
        if (parsed.ok) completedEvents.push(parsed.envelope.data);
      },
    });
    nc.subscribe(ResearchFailed.subject, {
      callback: (_, m) => {
        const parsed = parseEnvelope(ResearchFailed, m.data);
        if (parsed.ok) failedEvents.push(parsed.envelope.data);
      },
    });
    await nc.flush();
  });

  afterAll(async () => {
    await nc?.close();
    await platform?.stop();
    await nats?.dispose();
    await openai?.close();
    await anthropic?.close();
  });

  /** A user with keys for openai and anthropic (their keys script the wire servers). */
  async function user(name: string, anthropicScript: Script = 'ok', openaiScript: Script = 'ok'): Promise<{ client: ResearchApiClient; keys: { openai: string; anthropic: string } }> {
    const client = await ResearchApiClient.forUser(platform, name);
    const keys = { openai: `sk-openai-${name}-0123456789`, anthropic: `sk-ant-${name}-0123456789` };
    scripts.set(keys.openai, openaiScript);
    scripts.set(keys.anthropic, anthropicScript);
    for (const [provider, apiKey] of Object.entries(keys)) expect((await client.call('PUT', `/research/keys/${provider}`, { apiKey })).status).toBe(204);
    return { client, keys };
  }

  const legStatuses = (view: Json): string[] => (view['llmResults'] as { status: string }[]).map((r) => r.status);
  const requestsWith = (server: LlmWireServer, apiKey: string) => server.requests.filter((r) => r.apiKey === apiKey);

  it('one leg fails → awaiting_confirmation → proceed → completed with a synthesis citing its sources, shared, announced; progress over SSE', async () => {
    const { client, keys } = await user('e2e-ada', 'fail');
    expect((await client.call('GET', '/research/keys')).body).toEqual({
      keys: [
        { provider: 'anthropic', updatedAt: expect.any(String), lastTest: null },
        { provider: 'openai', updatedAt: expect.any(String), lastTest: null },
      ],
    });

    const started = await client.call('POST', '/research', { prompt: PROMPT, selectedLlms: ['openai', 'anthropic'], externalReports: [FIELD_STUDY] });
    expect(started.status).toBe(202);
    const id = started.body['id'] as string;
    expect(started.body).toMatchObject({ status: 'processing', selectedLlms: ['openai', 'anthropic'], synthesisLlm: 'local', startedAt: expect.any(String) });

    // Per-leg progress on the run's SSE stream, up to the human gate.
    const toGate = await client.events(id, (v) => v['status'] === 'awaiting_confirmation');
    expect(toGate[0]?.['status']).toBe('processing');
    expect(toGate.some((v) => legStatuses(v).includes('processing') || legStatuses(v).join() === 'completed,pending')).toBe(true);
    expect(toGate.at(-1)?.['status']).toBe('awaiting_confirmation');

    const gate = await client.research(id);
    expect(gate).toMatchObject({
      status: 'awaiting_confirmation',
      partialFailure: { failedProviders: ['anthropic'], detectedAt: expect.any(String), retryCount: 0 },
      ui: { card: 'confirm_dialog', actions: ['proceed', 'retry', 'cancel'] },
    });
    const [openaiLeg, anthropicLeg] = gate['llmResults'] as Json[];
    expect(openaiLeg).toMatchObject({ provider: 'openai', status: 'completed', model: 'openai/gpt-4o-mini', result: OPENAI_REPORT, local: false });
    expect(anthropicLeg).toMatchObject({ provider: 'anthropic', status: 'failed', errorReason: 'server_error', error: expect.stringMatching(/500/) });
    // The user's own keys reached the providers; the failing provider was retried by the wrapper, then failed.
    expect(requestsWith(openai, keys.openai)).toHaveLength(1);
    expect(requestsWith(anthropic, keys.anthropic)).toHaveLength(2);
    expect(requestsWith(openai, keys.openai)[0]?.user).toContain('[External 1: Field study 2023]');

    // The spec's 409s for the wrong state.
    expect(await client.call('POST', `/research/${id}/retry`)).toMatchObject({ status: 409, body: { error: 'conflict', status: 'awaiting_confirmation' } });

    const toEnd = client.events(id, (v) => v['status'] === 'completed');
    const proceeded = await client.call('POST', `/research/${id}/confirm`, { action: 'proceed' });
    expect(proceeded.status).toBe(200);
    expect(['synthesizing', 'completed']).toContain(proceeded.body['status']);
    const ending = await toEnd;
    expect(ending.map((v) => v['status'])).toEqual(expect.arrayContaining(['synthesizing', 'completed']));

    const done = await client.research(id);
    expect(done).toMatchObject({ status: 'completed', synthesisModel: 'local/extractive', synthesisSkipped: false, completedAt: expect.any(String), ui: { card: 'synthesis_and_reports' } });
    const synthesis = done['synthesizedResult'] as string;
    expect(synthesis).toContain('[openai]');
    expect(synthesis).toContain('[External 1]');
    expect(synthesis).not.toContain('[anthropic]');
    expect(done['synthesisAttributions']).toEqual([
      { source: 'openai', label: 'openai', sentences: expect.any(Number) },
      { source: 'external:1', label: 'External 1', sentences: expect.any(Number) },
    ]);
    // The OpenAI leg was given the external report: its restatement of it (same figure) is that report's
    // finding, credited to it alone, not a second source agreeing; its own finding stays its own.
    expect(synthesis).toMatch(/Gas boilers convert at most 95 percent of (their|the) fuel[^\n]*\[External 1\]\n/);
    expect(synthesis).not.toMatch(/Gas boilers[^\n]*\[openai\]/);
    expect(synthesis).toContain('Running costs depend on the electricity to gas price ratio. [openai]');

    // Shared: a signed, expiring URL to a self-contained HTML page, no token needed.
    const share = done['shareInfo'] as { url: string; expiresAt: string };
    expect(share.url.startsWith(`${platform.gatewayUrl}/v1/shared/`)).toBe(true);
    // No storage key reaches a client: the page goes by its signed URL on every route that serves the run.
    expect(Object.keys(share).sort()).toEqual(['contentSha256', 'expiresAt', 'url']);
    expect(JSON.stringify(ending.at(-1))).toContain('"shareInfo":{');
    expect(JSON.stringify(ending)).not.toContain('blobKey');
    const asRun = await client.call('GET', `/runs/${id}`);
    expect(asRun.status).toBe(200);
    expect(JSON.stringify(asRun.body)).toContain('"shareInfo":{');
    expect(JSON.stringify(asRun.body)).not.toContain('blobKey');
    const page = await fetch(share.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; img-src data:");
    const html = await page.text();
    expect(html).toContain('<h2>Synthesis</h2>');
    expect(html).not.toMatch(/<script/i);
    expect((await fetch(`${share.url.slice(0, -4)}AAAA`)).status).toBe(403);

    // Announced for other teams.
    await waitUntil(() => completedEvents.some((e) => e.researchId === id));
    expect(completedEvents.find((e) => e.researchId === id)).toMatchObject({ userId: 'e2e-ada', providers: ['openai'], failedProviders: ['anthropic'], synthesized: true, shareUrl: share.url });

    // Finished: the gate is closed, and a stranger sees nothing.
    expect(await client.call('POST', `/research/${id}/confirm`, { action: 'cancel' })).toMatchObject({ status: 409, body: { status: 'completed' } });
    const bob = await ResearchApiClient.forUser(platform, 'e2e-bob');
    expect((await bob.call('GET', `/research/${id}`)).status).toBe(404);
  });

  it('refuses bad input naming the field, and a start without keys naming the providers', async () => {
    const { client } = await user('e2e-cleo');
    const cases: [unknown, string][] = [
      [{ prompt: '   ' }, 'prompt'],
      [{ prompt: PROMPT, selectedLlms: ['mistral'] }, 'selectedLlms.0'],
      [{ prompt: PROMPT, selectedLlms: [] }, 'selectedLlms'],
      [{ prompt: PROMPT, externalReports: [{ content: 'x'.repeat(50_001) }] }, 'externalReports.0.content'],
    ];
    for (const [body, path] of cases) {
      const refused = await client.call('POST', '/research', body);
      expect({ status: refused.status, paths: (refused.body['issues'] as { path: string }[]).map((i) => i.path) }).toEqual({ status: 400, paths: [path] });
    }
    // A key sent blank is the client's mistake, named, as on every starting route (not a fresh run).
    const blankKey = await client.call('POST', '/research/draft', { prompt: PROMPT }, { 'idempotency-key': '   ' });
    expect(blankKey).toMatchObject({ status: 400, body: { issues: [{ path: 'Idempotency-Key' }] } });
    expect(await client.call('POST', '/research', { prompt: PROMPT, selectedLlms: ['openai', 'gemini'], synthesisLlm: 'gemini' })).toMatchObject({
      status: 400,
      body: { error: 'missing_api_keys', providers: ['gemini'] },
    });
    expect((await client.call('PUT', '/research/keys/mistral', { apiKey: 'sk-0123456789' })).status).toBe(400);
  });

  it('draft → start → one local leg → completed without synthesis (skip rule, no share page); a draft starts once', async () => {
    const { client } = await user('e2e-dan');
    const draft = await client.call('POST', '/research/draft', { prompt: PROMPT, externalReports: [] }, { 'idempotency-key': 'draft-1' });
    expect(draft.status).toBe(201);
    const id = draft.body['id'] as string;
    expect(draft.body).toMatchObject({
      status: 'draft',
      title: 'How efficient are cold-climate heat pumps compared with gas boilers',
      titleSource: 'fallback',
      selectedLlms: ['openai', 'anthropic', 'local'],
      synthesisLlm: 'local',
      ui: { card: 'edit_form', actions: ['start'] },
    });
    // The same Idempotency-Key is the same draft.
    expect((await client.call('POST', '/research/draft', { prompt: 'another' }, { 'idempotency-key': 'draft-1' })).body['id']).toBe(id);

    const started = await client.call('POST', '/research', { draftId: id, selectedLlms: ['local'], externalReports: [FIELD_STUDY] });
    expect(started.status).toBe(202);
    expect(['processing', 'synthesizing', 'completed']).toContain(started.body['status']);
    expect(await client.call('POST', '/research', { draftId: id })).toMatchObject({ status: 409, body: { error: 'conflict' } });

    const done = await client.waitFor(id, (r) => r['status'] === 'completed');
    const local = (done['llmResults'] as Json[])[0];
    expect(local).toMatchObject({ provider: 'local', status: 'completed', local: true, model: 'local/extractive' });
    expect(local?.['result']).toContain('"Cold-climate heat pumps kept a coefficient of performance above 2 at -15 °C in the 2023 field study." [E1]');
    // One result and one external report: synthesis runs (external reports count).
    expect(done).toMatchObject({ synthesisSkipped: false, shareInfo: expect.any(Object) });

    const single = await client.call('POST', '/research', { prompt: PROMPT, selectedLlms: ['local'] });
    const skipped = await client.waitFor(single.body['id'] as string, (r) => r['status'] === 'completed');
    // No synthesis: completed when its leg is, without the research service, so no share page.
    expect(skipped).toMatchObject({ synthesizedResult: null, synthesisSkipped: true, ui: { card: 'synthesis_not_available', showSynthesisNotAvailable: true }, shareInfo: null });
  });

  it('confirm retry re-runs only the failed leg; the retried leg succeeds and the research completes', async () => {
    const { client, keys } = await user('e2e-eve', 'fail');
    const id = (await client.call('POST', '/research', { prompt: PROMPT, selectedLlms: ['openai', 'anthropic'] })).body['id'] as string;
    await client.waitFor(id, (r) => r['status'] === 'awaiting_confirmation');
    scripts.set(keys.anthropic, 'ok');
    const retried = await client.call('POST', `/research/${id}/confirm`, { action: 'retry' });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ retryCount: 1 });
    const done = await client.waitFor(id, (r) => r['status'] === 'completed');
    expect(legStatuses(done)).toEqual(['completed', 'completed']);
    expect((done['llmResults'] as Json[])[1]).toMatchObject({ round: 2, result: ANTHROPIC_REPORT });
    expect(requestsWith(openai, keys.openai)).toHaveLength(1);
    expect(done['synthesizedResult']).toMatch(/\[openai\]\[anthropic\]|\[anthropic\]\[openai\]/);
  });

  it('all legs fail → failed; POST retry → retrying → completed; the 409s of retry', async () => {
    const { client, keys } = await user('e2e-fay', 'fail', 'fail');
    const id = (await client.call('POST', '/research', { prompt: PROMPT, selectedLlms: ['openai', 'anthropic'] })).body['id'] as string;
    const failed = await client.waitFor(id, (r) => r['status'] === 'failed');
    expect(failed).toMatchObject({ error: 'All LLM calls failed', errorKind: 'all_failed', ui: { card: 'error', actions: ['retry'] } });
    await waitUntil(() => failedEvents.some((e) => e.researchId === id && e.errorKind === 'all_failed'));

    scripts.set(keys.openai, 'ok');
    scripts.set(keys.anthropic, 'ok');
    const retried = await client.call('POST', `/research/${id}/retry`);
    expect(retried.status).toBe(202);
    expect(['retrying', 'processing', 'synthesizing', 'completed']).toContain(retried.body['status']);
    const done = await client.waitFor(id, (r) => r['status'] === 'completed');
    expect(done).toMatchObject({ retryCount: 1, error: null });
    expect(await client.call('POST', `/research/${id}/retry`)).toMatchObject({ status: 409, body: { status: 'completed' } });
  });

  it('a rejected key fails the run with reason auth and "update your key, then retry"; the CLI says how, and its --retry uses the updated key. One LLM needs no synthesis key', async () => {
    const { client, keys } = await user('e2e-hal', 'ok', 'reject');
    // One LLM, no external report: no synthesis can come, so no gemini key is asked for.
    const id = (await client.call('POST', '/research', { prompt: PROMPT, selectedLlms: ['openai'], synthesisLlm: 'gemini' })).body['id'] as string;
    const failed = await client.waitFor(id, (r) => r['status'] === 'failed');
    expect(failed).toMatchObject({
      errorKind: 'all_failed',
      errorReason: 'auth',
      error: 'All LLM calls failed: openai rejected the API key — update your key, then retry',
      llmResults: [expect.objectContaining({ status: 'failed', errorReason: 'auth' })],
      ui: { card: 'error', message: 'All LLM calls failed: openai rejected the API key — update your key, then retry', actions: ['retry'] },
    });
    await waitUntil(() => failedEvents.some((e) => e.researchId === id && e.errorReason === 'auth'));
    // A rejected key is not retried by the provider client: one call.
    expect(requestsWith(openai, keys.openai)).toHaveLength(1);

    // The CLI, as the user meets the failure: the key command, then the retry command; each one run as printed.
    const cli = (args: string[], stdin?: string) => runCli(root, args, cliEnvironment(platform.gatewayUrl, platform.jwtSecret, 'e2e-hal'), stdin === undefined ? {} : { stdin });
    const shown = await cli(['research', '--resume', id]);
    expect(shown).toMatchObject({ code: 1, stderr: expect.stringContaining(`update your key (openpaw keys set openai < openai-key.txt), then retry: openpaw research --retry ${id}`) });
    const updated = 'sk-openai-e2e-hal-updated-0123456789';
    scripts.set(updated, 'ok');
    expect(await cli(['keys', 'set', 'openai'], updated)).toMatchObject({ code: 0 });
    const retried = await cli(['research', '--retry', id]);
    expect(retried).toMatchObject({ code: 0, stdout: expect.stringContaining(`retrying research ${id}`) });
    expect(retried.stdout).toMatch(/^ {2}openai: completed \(round 2\) \(openai\/gpt-4o-mini, /m);
    expect(retried.stdout).toContain(OPENAI_REPORT);
    const done = await client.research(id);
    expect(done).toMatchObject({ error: null, errorReason: null, synthesisSkipped: true, shareInfo: null, llmResults: [expect.objectContaining({ status: 'completed', round: 2, result: OPENAI_REPORT })] });
    // A completed research is not retried: the gateway's 409, exit 1.
    expect(await cli(['research', '--retry', id])).toMatchObject({ code: 1, stderr: expect.stringContaining('retry refused (completed): only a failed research can be retried; this one is completed') });
    expect(requestsWith(openai, updated)).toHaveLength(1);
  });

  it('"Test" a stored key: the research service makes one call with it and the key shows how it went (never the key); the CLI prints it; a replaced key is untested', async () => {
    const { client, keys } = await user('e2e-kit', 'reject', 'ok');
    const callsBefore = requestsWith(openai, keys.openai).length;
    // `?wait=`: the answer waits for the research service's report (200), and the key list shows it at once.
    const started = await client.call('POST', '/research/keys/openai/test?wait=20');
    const report = { testId: expect.any(String), requestedAt: expect.any(String), testedAt: expect.any(String), outcome: 'ok', model: 'openai/gpt-4o-mini', latencyMs: expect.any(Number), reason: null };
    expect(started).toMatchObject({ status: 200, body: { testId: expect.any(String), provider: 'openai', requestedAt: expect.any(String), lastTest: report } });
    const listed = async (): Promise<Json[]> => (await client.call('GET', '/research/keys')).body['keys'] as Json[];
    const testOf = async (provider: string): Promise<Json | null> => ((await listed()).find((k) => k['provider'] === provider)?.['lastTest'] as Json | null) ?? null;
    expect(await testOf('openai')).toEqual({ ...report, testId: started.body['testId'], requestedAt: started.body['requestedAt'] });
    // Without a wait: 202, not reported yet; the report lands on the key within moments.
    const asked = await client.call('POST', '/research/keys/openai/test');
    expect(asked).toMatchObject({ status: 202, body: { testId: expect.any(String), lastTest: { outcome: null } } });
    await waitUntilAsync(async () => (await testOf('openai'))?.['outcome'] === 'ok');
    // One minimal call per test, with the user's key, by the research service.
    expect(requestsWith(openai, keys.openai).length - callsBefore).toBe(2);
    expect(requestsWith(openai, keys.openai).at(-1)?.body['max_tokens'] ?? requestsWith(openai, keys.openai).at(-1)?.body['max_completion_tokens']).toBe(16);

    // The CLI: a refused key exits 1 naming auth; no key is a 404 (exit 1).
    const env = cliEnvironment(platform.gatewayUrl, platform.jwtSecret, 'e2e-kit');
    const cli = (...args: string[]) => runCli(root, ['keys', ...args], env);
    const refused = await cli('test', 'anthropic');
    expect(refused).toMatchObject({ code: 1, stdout: expect.stringMatching(/^anthropic: auth: refused: the provider does not accept this key .*HTTP 401/m) });
    expect(await testOf('anthropic')).toMatchObject({ outcome: 'auth', reason: expect.stringContaining('Incorrect API key provided') });
    expect(await cli('test', 'gemini')).toMatchObject({ code: 1, stderr: expect.stringContaining('no gemini key stored') });
    expect((await client.call('POST', '/research/keys/mistral/test')).status).toBe(400);
    expect(await client.call('POST', '/research/keys/openai/test?wait=31')).toMatchObject({ status: 400, body: { issues: [expect.objectContaining({ path: 'wait' })] } });
    expect(JSON.stringify(await listed())).not.toContain(keys.anthropic);
    const list = await cli('list');
    expect(list).toMatchObject({ code: 0, stdout: expect.stringMatching(/^openai: stored .*; ok: works \(openai\/gpt-4o-mini, [\d.]+ s\)$/m) });

    // A replaced key starts untested.
    expect((await client.call('PUT', '/research/keys/openai', { apiKey: 'sk-openai-e2e-kit-new-0123456789' })).status).toBe(204);
    expect(await testOf('openai')).toBeNull();
  });

  it('the CLI (`openpaw research`) streams each leg, answers the gate from stdin, prints the report and says there is no share page', async () => {
    await user('e2e-ida', 'fail');
    const { code, stdout, stderr } = await runCli(root, ['research', PROMPT, '--llm', 'openai,anthropic'], cliEnvironment(platform.gatewayUrl, platform.jwtSecret, 'e2e-ida'), { stdin: 'p\n' });
    expect({ code, stderr }).toEqual({ code: 0, stderr: expect.stringContaining('p = proceed with the successful reports') });
    expect(stdout).toMatch(/^research [0-9a-f-]{36}$/m);
    expect(stdout).toMatch(/^ {2}openai: completed \(openai\/gpt-4o-mini, [\d.]+ s, \$[\d.]+\)$/m);
    expect(stdout).toMatch(/^ {2}anthropic: failed — server_error: /m);
    expect(stdout).toContain('anthropic failed; openai completed.');
    expect(stdout).toContain('Report by openai:');
    expect(stdout).toContain(OPENAI_REPORT);
    expect(stdout).toContain('No share page: a research without a synthesis publishes none (the report is above).');
  });

  it('cancel at the gate → failed "Cancelled by user"; a retry of it is refused', async () => {
    const { client } = await user('e2e-gus', 'fail');
    const id = (await client.call('POST', '/research', { prompt: PROMPT, selectedLlms: ['openai', 'anthropic'] })).body['id'] as string;
    await client.waitFor(id, (r) => r['status'] === 'awaiting_confirmation');
    const cancelled = await client.call('POST', `/research/${id}/confirm`, { action: 'cancel' });
    expect(cancelled).toMatchObject({ status: 200, body: { status: 'failed', error: 'Cancelled by user', errorKind: 'cancelled', ui: { actions: ['create_new'] } } });
    expect(await client.call('POST', `/research/${id}/retry`)).toMatchObject({ status: 409, body: { reason: 'cancelled' } });
    expect(await client.call('POST', `/research/${id}/confirm`, { action: 'proceed' })).toMatchObject({ status: 409 });
  });

  it('a registered webhook receives the signed ResearchCompleted, retried after 5xx answers until accepted', async () => {
    // The user's receiver on 127.0.0.1: 503 twice, then 204.
    const received: { headers: IncomingHttpHeaders; body: string; status: number }[] = [];
    // The delivery the receiver accepts is the event the test waits for (no polling).
    let accepted: () => void = () => undefined;
    const deliveredOnce = new Promise<void>((resolve) => (accepted = resolve));
    const receiver: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const status = received.length < 2 ? 503 : 204;
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
        res.writeHead(status);
        res.end(() => {
          if (status === 204) accepted();
        });
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const { client } = await user('e2e-wes');
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/openpaw`;
      // Answered once the research service has taken it: the run started next cannot end before it.
      const registered = await client.call('PUT', '/research/webhook?wait=10', { url });
      expect(registered.status).toBe(200);
      expect(registered.body['active']).toBe(true);
      const secret = registered.body['secret'] as string;

      const started = await client.call('POST', '/research', { prompt: PROMPT, selectedLlms: ['local'], externalReports: [FIELD_STUDY] });
      expect(started.status).toBe(202);
      const id = started.body['id'] as string;
      await client.waitFor(id, (r) => r['status'] === 'completed');
      await deliveredOnce;

      expect(received.map((r) => r.status)).toEqual([503, 503, 204]);
      for (const attempt of received) {
        // What a receiver checks: HMAC-SHA256 with the secret over "<timestamp>.<body>".
        const timestamp = String(attempt.headers['x-openpaw-timestamp']);
        const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${attempt.body}`).digest('hex')}`;
        expect(attempt.headers['x-openpaw-signature']).toBe(expected);
        expect(Math.abs(Date.now() / 1000 - Number(timestamp))).toBeLessThan(300);
        expect(JSON.parse(attempt.body)).toMatchObject({ type: ResearchCompleted.subject, data: { researchId: id, providers: ['local'] } });
      }
      expect(new Set(received.map((r) => r.headers['x-openpaw-event-id'])).size).toBe(1);

      // The caller sees the webhook (never its secret) and how its last delivery went.
      let view: Record<string, unknown> = {};
      await waitUntilAsync(async () => {
        view = (await client.call('GET', '/research/webhook')).body;
        return (view['lastDelivery'] as { outcome?: string } | null)?.outcome === 'delivered';
      }, 30_000);
      expect(view).toMatchObject({ url, secretSet: true, lastDelivery: { eventId: received[0]?.headers['x-openpaw-event-id'], eventType: ResearchCompleted.subject, attempt: 3, reason: null } });
      expect(JSON.stringify(view)).not.toContain(secret);
    } finally {
      receiver.close();
    }
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function waitUntilAsync(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
