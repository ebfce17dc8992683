import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LlmCallFailedError } from '../llm/errors.js';
import { createLlmFromEnv } from '../llm/create-llm-from-env.js';
import { type LlmAnswerObservation, type LlmAttemptObservation, observeLlmCalls } from './observed-llm-client.js';

function recorder(): { attempts: LlmAttemptObservation[]; answers: LlmAnswerObservation[]; onAttempt(a: LlmAttemptObservation): void; onAnswered(a: LlmAnswerObservation): void } {
  const attempts: LlmAttemptObservation[] = [];
  const answers: LlmAnswerObservation[] = [];
  return { attempts, answers, onAttempt: (a) => attempts.push(a), onAnswered: (a) => answers.push(a) };
}

describe('observeLlmCalls', () => {
  let server: Server;
  let baseUrl: string;

  beforeAll(async () => {
    // An OpenAI-compatible endpoint that is down for maintenance: every request answers 503.
    server = createServer((_request, response) => {
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'maintenance', type: 'server_error' } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('reports each attempt and the answering model\'s tokens and cost of an answered call, and returns the same result', async () => {
    const seen = recorder();
    const client = observeLlmCalls(createLlmFromEnv({}), seen);
    const reply = await client.chat([{ role: 'user', content: 'Solve 2x + 3 = 7' }], { maxTokens: 200 });
    expect(seen.attempts).toEqual([{ provider: 'local', model: reply.model, outcome: 'ok', latencyMs: reply.latencyMs }]);
    expect(seen.answers).toEqual([{ provider: 'local', model: reply.model, inputTokens: reply.usage.inputTokens, outputTokens: reply.usage.outputTokens, costUsd: reply.costUsd }]);
    expect(reply.usage.inputTokens).toBeGreaterThan(0);
    expect(client.describe()).toEqual(createLlmFromEnv({}).describe());
  });

  it('reports the attempts of a call every model failed, and nothing answered', async () => {
    const seen = recorder();
    const client = observeLlmCalls(createLlmFromEnv({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: baseUrl, OPENPAW_LLM_MAX_ATTEMPTS: '2' }), seen);
    const failure = await client.chat([{ role: 'user', content: 'hello' }], { maxTokens: 50 }).then(() => undefined, (error: unknown) => error);
    expect(failure).toBeInstanceOf(LlmCallFailedError);
    expect(seen.attempts.map((a) => [a.provider, a.model, a.outcome, typeof a.latencyMs])).toEqual([
      ['openai', 'openai/gpt-4o-mini', 'server_error', 'number'],
      ['openai', 'openai/gpt-4o-mini', 'server_error', 'number'],
    ]);
    expect(seen.answers).toEqual([]);
  });
});
