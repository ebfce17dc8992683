import { ResearchProviderKeyTested } from '@openpaw/contracts';
import { findFreePort } from '@openpaw/testing';
import { type LlmWireServer, startAnthropicWireServer, startOpenAiWireServer, type WireAnswer } from '@openpaw/testkit';
import { flowFixture } from '../../testing/flow-fixtures.js';

const TEST_ID = '00000000-0000-4000-8000-0000000000a1';
const REQUESTED_AT = '2026-11-27T19:00:00.000Z';

/** Each key scripts what the provider answers it, as the real APIs do (status and documented error body). */
const OPENAI_ANSWERS: Readonly<Record<string, WireAnswer>> = {
  'sk-openai-good-0123456789': { text: 'ok' },
  'sk-openai-revoked-0123456789': { status: 401, message: 'Incorrect API key provided: sk-openai-revoked-0123456789. You can find your API key at https://platform.openai.com/account/api-keys.', errorType: 'invalid_api_key' },
  'sk-openai-broke-0123456789': { status: 429, message: 'You exceeded your current quota, please check your plan and billing details.', errorType: 'insufficient_quota' },
  'sk-openai-nomodel-0123456789': { status: 404, message: 'The model `gpt-4o-mini` does not exist or you do not have access to it.', errorType: 'model_not_found' },
  'sk-openai-down-0123456789': { status: 503, message: 'The server is overloaded or not ready yet.' },
};

describe('TestProviderKey (one minimal call with the user’s key, through the real provider clients)', () => {
  let openai: LlmWireServer;
  let anthropic: LlmWireServer;

  beforeAll(async () => {
    openai = await startOpenAiWireServer((r) => OPENAI_ANSWERS[r.apiKey ?? ''] ?? { status: 500, message: 'unscripted key' });
    anthropic = await startAnthropicWireServer((r) =>
      r.apiKey === 'sk-ant-good-0123456789' ? { text: 'ok' } : { status: 401, message: 'invalid x-api-key', errorType: 'authentication_error' },
    );
  });
  afterAll(async () => {
    await openai?.close();
    await anthropic?.close();
  });

  const fixture = () => flowFixture({ OPENAI_BASE_URL: openai.baseUrl, ANTHROPIC_BASE_URL: anthropic.baseUrl, OPENPAW_LLM_MAX_ATTEMPTS: '3' });

  async function testKey(provider: 'openai' | 'anthropic', apiKey: string, userId = 'u-tester') {
    const f = fixture();
    const key = await f.seal(userId, provider, apiKey);
    const report = await f.keyTests.execute({ userId, provider, key, testId: TEST_ID, requestedAt: REQUESTED_AT });
    // Every report is a valid event, and none carries the key.
    expect(ResearchProviderKeyTested.schema.safeParse(report).success).toBe(true);
    expect(JSON.stringify(report)).not.toContain(apiKey);
    return report;
  }

  it('a working key: ok, one request carrying the key, to the model research legs of that provider use', async () => {
    expect(await testKey('openai', 'sk-openai-good-0123456789')).toMatchObject({ outcome: 'ok', reason: null, model: 'openai/gpt-4o-mini', testId: TEST_ID, latencyMs: expect.any(Number) });
    const sent = openai.requests.filter((r) => r.apiKey === 'sk-openai-good-0123456789');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ path: '/v1/chat/completions', model: 'gpt-4o-mini' });
    expect(await testKey('anthropic', 'sk-ant-good-0123456789')).toMatchObject({ outcome: 'ok', model: 'anthropic/claude-haiku-4-5' });
  });

  it('names the provider’s refusal: auth (the key echoed back is redacted), quota, model unknown, provider error — each after exactly one request', async () => {
    const revoked = await testKey('openai', 'sk-openai-revoked-0123456789');
    expect(revoked).toMatchObject({ outcome: 'auth', reason: expect.stringContaining('HTTP 401') });
    expect(revoked.reason).toContain('[redacted]');
    expect(await testKey('openai', 'sk-openai-broke-0123456789')).toMatchObject({ outcome: 'quota', reason: expect.stringContaining('exceeded your current quota') });
    expect(await testKey('openai', 'sk-openai-nomodel-0123456789')).toMatchObject({ outcome: 'model_unknown', reason: expect.stringContaining('does not exist') });
    expect(await testKey('openai', 'sk-openai-down-0123456789')).toMatchObject({ outcome: 'provider_error', reason: expect.stringContaining('HTTP 503') });
    expect(await testKey('anthropic', 'sk-ant-wrong-0123456789')).toMatchObject({ outcome: 'auth', reason: expect.stringContaining('invalid x-api-key') });
    // A test is one call: no retry of the 429 or the 503 (the client would retry a research leg's).
    for (const key of Object.keys(OPENAI_ANSWERS).filter((k) => !k.includes('good'))) expect(openai.requests.filter((r) => r.apiKey === key)).toHaveLength(1);
  });

  it('a provider nobody answers at: unreachable', async () => {
    const closed = `http://127.0.0.1:${await findFreePort()}/v1`;
    const f = flowFixture({ OPENAI_BASE_URL: closed });
    const key = await f.seal('u-closed', 'openai', 'sk-openai-anywhere-0123456789');
    expect(await f.keyTests.execute({ userId: 'u-closed', provider: 'openai', key, testId: TEST_ID, requestedAt: REQUESTED_AT })).toMatchObject({ outcome: 'unreachable', reason: expect.any(String) });
  });

  it('a stored key this service cannot open (another user’s, or sealed to another key): auth, and no call is made', async () => {
    const f = fixture();
    const key = await f.seal('u-ada', 'openai', 'sk-openai-good-0123456789');
    const before = openai.requests.length;
    expect(await f.keyTests.execute({ userId: 'u-bob', provider: 'openai', key, testId: TEST_ID, requestedAt: REQUESTED_AT })).toMatchObject({
      outcome: 'auth',
      latencyMs: null,
      reason: expect.stringContaining('cannot be opened'),
    });
    expect(openai.requests.length).toBe(before);
  });
});
