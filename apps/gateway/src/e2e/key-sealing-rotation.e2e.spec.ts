import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { freshDatabase, type NatsServerHandle, privateNatsServer, type RunningPlatform, startPlatformProcesses } from '@openpaw/testing';
import { type LlmWireServer, startOpenAiWireServer } from '@openpaw/testkit';
import { type Json, ResearchApiClient } from '../research/testing/research-api-client.js';

/**
 * The runbook's "Rotating the key-sealing pair", step by step, on the gateway, the coordinator and
 * the research service as their own processes: users' provider keys sealed before, during and after
 * the rotation keep opening, in the runbook's order of restarts, until the previous private key is
 * dropped; then only the texts sealed to it are refused, with the reason `auth`.
 */
const root = process.env['OPENPAW_E2E_ROOT'] ?? join(import.meta.dirname, '../../../..');
const REPORT = 'Heat pumps keep a coefficient of performance above 2 at -15 °C; gas boilers convert at most 95 percent of their fuel into heat.';
const PROMPT = 'How efficient are cold-climate heat pumps compared with gas boilers?';

const publicKeyText = (key: KeyObject): string => key.export({ type: 'spki', format: 'der' }).toString('base64');
const privateKeyText = (key: KeyObject): string => key.export({ type: 'pkcs8', format: 'der' }).toString('base64');

describe('rotating the key-sealing pair (runbook)', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let openai: LlmWireServer;
  const before = generateKeyPairSync('x25519');
  const after = generateKeyPairSync('x25519');

  beforeAll(async () => {
    openai = await startOpenAiWireServer(() => ({ text: REPORT }));
    nats = await privateNatsServer();
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('e2e_key_sealing_rotation'),
      services: ['coordinator', 'research', 'gateway'],
      serviceEnv: {
        gateway: { OPENPAW_KEY_SEALING_PUBLIC_KEY: publicKeyText(before.publicKey) },
        research: {
          OPENPAW_KEY_SEALING_PRIVATE_KEY: privateKeyText(before.privateKey),
          OPENAI_BASE_URL: openai.baseUrl,
          OPENPAW_LLM_MAX_ATTEMPTS: '1',
          OPENPAW_RESEARCH_MODELS: JSON.stringify({ openai: 'openai/gpt-4o-mini' }),
        },
      },
    });
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
    await nats?.dispose();
    await openai?.close();
  });

  /** A user whose OpenAI key the gateway seals now, with whatever public key it runs with. */
  async function userWithKey(name: string): Promise<{ client: ResearchApiClient; apiKey: string }> {
    const client = await ResearchApiClient.forUser(platform, name);
    const apiKey = `sk-openai-${name}-0123456789`;
    expect((await client.call('PUT', '/research/keys/openai', { apiKey })).status).toBe(204);
    return { client, apiKey };
  }

  /** One research on the user's OpenAI key (one LLM: no synthesis), to its end. */
  async function research(user: { client: ResearchApiClient }): Promise<Json> {
    const created = await user.client.call('POST', '/research', { prompt: PROMPT, selectedLlms: ['openai'], synthesisLlm: 'openai' });
    expect(created.status).toBe(202);
    return user.client.waitFor(created.body['id'] as string, (r) => r['status'] === 'completed' || r['status'] === 'failed', 60_000);
  }

  const callsWith = (apiKey: string): number => openai.requests.filter((r) => r.apiKey === apiKey).length;

  it('texts sealed before, during and after the rotation open until the previous key is dropped; then only those sealed to it are refused', async () => {
    const ann = await userWithKey('rotation-ann');
    expect(await research(ann)).toMatchObject({ status: 'completed' });
    expect(callsWith(ann.apiKey)).toBe(1);

    // Step 2: research first, with the new private key and the current one as the previous.
    await platform.restartWith('research', {
      OPENPAW_KEY_SEALING_PRIVATE_KEY: privateKeyText(after.privateKey),
      OPENPAW_KEY_SEALING_PREVIOUS_PRIVATE_KEY: privateKeyText(before.privateKey),
    });
    // The gateway still seals to the old public key: a key saved now opens with the previous private key.
    const ben = await userWithKey('rotation-ben');
    expect(await research(ann)).toMatchObject({ status: 'completed' });
    expect(await research(ben)).toMatchObject({ status: 'completed' });

    // Step 3: only then the gateway seals to the new public key.
    await platform.restartWith('gateway', { OPENPAW_KEY_SEALING_PUBLIC_KEY: publicKeyText(after.publicKey) });
    const cat = await userWithKey('rotation-cat');
    expect(await research(cat)).toMatchObject({ status: 'completed' });
    expect(await research(ann)).toMatchObject({ status: 'completed' });
    expect([callsWith(ann.apiKey), callsWith(ben.apiKey), callsWith(cat.apiKey)]).toEqual([3, 1, 1]);

    // Step 4: the previous private key dropped. Texts sealed to it are refused (no call is made with
    // what cannot be opened); a text sealed to the new key still opens; a user who saves their key again is served.
    await platform.restartWith('research', { OPENPAW_KEY_SEALING_PREVIOUS_PRIVATE_KEY: undefined });
    expect(await research(ann)).toMatchObject({ status: 'failed', errorReason: 'auth', llmResults: [expect.objectContaining({ status: 'failed', errorReason: 'auth' })] });
    expect(callsWith(ann.apiKey)).toBe(3);
    expect(await research(cat)).toMatchObject({ status: 'completed' });
    expect((await ann.client.call('PUT', '/research/keys/openai', { apiKey: ann.apiKey })).status).toBe(204);
    expect(await research(ann)).toMatchObject({ status: 'completed' });
    expect(callsWith(ann.apiKey)).toBe(4);
  });
});
