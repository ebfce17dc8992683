import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { freshDatabase, type NatsServerHandle, privateNatsServer, type RunningPlatform, startPlatformProcesses } from '@openpaw/testing';
import { type LlmWireServer, startAnthropicWireServer, startOpenAiWireServer, type WireAnswer, type WireRequest } from '@openpaw/testkit';
import { type Json, ResearchApiClient } from '../research/testing/research-api-client.js';

/**
 * Spec 05 under crashes: the research service or the coordinator is SIGKILLed while a leg is in
 * flight. No leg is lost (the leg's command is redelivered, or its reply waits in JetStream for the
 * coordinator), none is completed twice, and a provider that already answered is never called again.
 */
const root = process.env['OPENPAW_E2E_ROOT'] ?? join(import.meta.dirname, '../../../..');
const PROMPT = 'What limits the efficiency of heat pumps in very cold weather?';

describe('research under kill -9 (spec 05)', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let databaseUrl: string;
  let openai: LlmWireServer;
  let anthropic: LlmWireServer;
  /** While set, the OpenAI-compatible server holds requests until released (a long leg). */
  let held: { release: () => void; promise: Promise<void> } | undefined;

  const hold = (): void => {
    let release = (): void => undefined;
    const promise = new Promise<void>((resolve) => (release = resolve));
    held = { release, promise };
  };
  const openaiAnswer = async (_: WireRequest): Promise<WireAnswer> => {
    if (held !== undefined) await held.promise;
    return { text: 'Defrost cycles and the falling temperature lift limit efficiency in the cold.' };
  };

  beforeAll(async () => {
    openai = await startOpenAiWireServer(openaiAnswer);
    anthropic = await startAnthropicWireServer(() => ({ text: 'The compressor works harder as the outdoor temperature drops.' }));
    nats = await privateNatsServer();
    databaseUrl = await freshDatabase('e2e_research_crash');
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl,
      services: ['coordinator', 'research', 'gateway'],
      env: { OPENPAW_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
      serviceEnv: { research: { OPENAI_BASE_URL: openai.baseUrl, ANTHROPIC_BASE_URL: anthropic.baseUrl, OPENPAW_LLM_MAX_ATTEMPTS: '1' } },
    });
  });

  afterAll(async () => {
    held?.release();
    await platform?.stop();
    await nats?.dispose();
    await openai?.close();
    await anthropic?.close();
  });

  async function client(name: string): Promise<{ client: ResearchApiClient; keys: Record<'openai' | 'anthropic', string> }> {
    const c = await ResearchApiClient.forUser(platform, name);
    const keys = { openai: `sk-openai-${name}-0123456789`, anthropic: `sk-ant-${name}-0123456789` };
    for (const [provider, apiKey] of Object.entries(keys)) expect((await c.call('PUT', `/research/keys/${provider}`, { apiKey })).status).toBe(204);
    return { client: c, keys };
  }

  async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** How often each leg of the run was recorded completed in the coordinator's step log. */
  async function legCompletions(runId: string): Promise<number[]> {
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const rows = await db.query<{ payload: { leg: number } }>(`select payload from coordinator.workflow_step_logs where workflow_run_id = $1 and step_name = 'leg_completed' order by id`, [runId]);
      return rows.rows.map((r) => r.payload.leg).sort();
    } finally {
      await db.end();
    }
  }

  const statuses = (r: Json): string[] => (r['llmResults'] as { status: string }[]).map((l) => l.status);

  it('the research service is killed mid-leg: the leg is redelivered and completes once; the provider that answered is not called again', async () => {
    const { client: c, keys } = await client('crash-ann');
    hold();
    const id = (await c.call('POST', '/research', { prompt: PROMPT, selectedLlms: ['openai', 'anthropic'], synthesisLlm: 'local' })).body['id'] as string;
    await until(() => openai.requests.some((r) => r.apiKey === keys.openai));
    await c.waitFor(id, (r) => statuses(r).join() === 'processing,completed');

    await platform.kill('research');
    held?.release();
    held = undefined;
    await platform.start('research');

    // The leg's command is redelivered once its ack wait passes; the leg runs again and completes.
    const done = await c.waitFor(id, (r) => r['status'] === 'completed', 120_000);
    expect(statuses(done)).toEqual(['completed', 'completed']);
    expect(openai.requests.filter((r) => r.apiKey === keys.openai)).toHaveLength(2);
    expect(anthropic.requests.filter((r) => r.apiKey === keys.anthropic)).toHaveLength(1);
    expect(await legCompletions(id)).toEqual([0, 1]);
  }, 180_000);

  it('the coordinator is killed mid-leg: the replies wait in JetStream, the run resumes and completes, each provider called once', async () => {
    const { client: c, keys } = await client('crash-ben');
    hold();
    const id = (await c.call('POST', '/research', { prompt: PROMPT, selectedLlms: ['openai', 'anthropic'], synthesisLlm: 'local' })).body['id'] as string;
    await until(() => openai.requests.some((r) => r.apiKey === keys.openai));

    await platform.kill('coordinator');
    held?.release();
    held = undefined;
    // The leg answers while the coordinator is down.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await platform.start('coordinator');

    const done = await c.waitFor(id, (r) => r['status'] === 'completed', 60_000);
    expect(statuses(done)).toEqual(['completed', 'completed']);
    expect(done['synthesizedResult']).toEqual(expect.stringContaining('[openai]'));
    expect(openai.requests.filter((r) => r.apiKey === keys.openai)).toHaveLength(1);
    expect(anthropic.requests.filter((r) => r.apiKey === keys.anthropic)).toHaveLength(1);
    expect(await legCompletions(id)).toEqual([0, 1]);
  }, 120_000);
});
