import { z } from 'zod';
import { fakeClock, useScriptedStubServer } from '../test-support/stub-server.js';
import { LlmCallFailedError, ProviderError } from './errors.js';
import { OpenAiChatModel } from './openai-chat-model.js';
import { ResilientLlmClient } from './resilient-llm-client.js';

const KEY = 'sk-test-openai-0123456789abcdef';
const stub = useScriptedStubServer();
const IMAGE = { mimeType: 'image/png' as const, data: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) };
const IMAGE_BASE64 = 'iVBORw0KGgo=';

function completion(text: string, model = 'gpt-4o-mini-2024-07-18') {
  return {
    status: 200,
    body: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1767225600,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
    },
  };
}

function client(clock = fakeClock()) {
  const model = new OpenAiChatModel({ apiKey: KEY, baseURL: `${stub.server.url}/v1`, maxTokensParam: 'max_completion_tokens', clock });
  return { clock, llm: new ResilientLlmClient({ models: [model], defaultModel: 'openai/gpt-4o-mini', clock, random: () => 0.5, defaultTimeoutMs: 2_000 }) };
}


describe('OpenAiChatModel against an OpenAI wire-format server', () => {
  it('sends a user message\'s images as image_url parts with base64 data URLs after its text', async () => {
    stub.script.push(() => completion('5y - 4 = 2y + 11'));
    const { llm } = client();
    await llm.chat([{ role: 'user', content: 'Transcribe the problem.', images: [IMAGE] }], { maxTokens: 64, temperature: 0 });
    expect((stub.server.requests[0]!.json() as { messages: unknown }).messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Transcribe the problem.' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${IMAGE_BASE64}` } }] },
    ]);
  });

  it('refuses images on a system message rather than drop them', async () => {
    const { llm } = client();
    await expect(llm.chat([{ role: 'system', content: 'x', images: [IMAGE] }, { role: 'user', content: 'y' }], { maxTokens: 8 })).rejects.toThrow(/images go with user messages only/);
    expect(stub.server.requests).toHaveLength(0);
  });

  it('sends a chat completion and reports usage, answering model and cost', async () => {
    stub.script.push(() => completion('4'));
    const { llm } = client();
    const result = await llm.chat(
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is 2 + 2?' },
      ],
      { maxTokens: 64, temperature: 0 },
    );

    expect(stub.server.requests).toHaveLength(1);
    const request = stub.server.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.url.pathname).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.json()).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is 2 + 2?' },
      ],
      temperature: 0,
      max_completion_tokens: 64,
    });
    expect(result).toMatchObject({
      text: '4',
      model: 'openai/gpt-4o-mini-2024-07-18',
      requestedModel: 'openai/gpt-4o-mini',
      usage: { inputTokens: 12, outputTokens: 5 },
      pricing: 'table',
      finishReason: 'stop',
    });
    // gpt-4o-mini: $0.15 / $0.60 per million tokens
    expect(result.costUsd).toBeCloseTo((12 * 0.15 + 5 * 0.6) / 1e6, 12);
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('sends max_tokens to an OpenAI-compatible server by default', async () => {
    stub.script.push(() => completion('ok', 'llama3.1'));
    const model = new OpenAiChatModel({ baseURL: `${stub.server.url}/v1` });
    const response = await model.complete({ model: 'llama3.1', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2, maxTokens: 10, signal: AbortSignal.timeout(2000) });
    expect(stub.server.requests[0]!.json()).toMatchObject({ model: 'llama3.1', max_tokens: 10 });
    expect(response.model).toBe('llama3.1');
  });

  it('retries a 429 after the Retry-After delay, on the injected clock', async () => {
    stub.script.push(() => ({ status: 429, headers: { 'retry-after': '7' }, body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } } }));
    stub.script.push(() => completion('done'));
    const { llm, clock } = client();
    const result = await llm.chat([{ role: 'user', content: 'hi' }], { maxTokens: 16 });
    expect(clock.sleeps).toEqual([7000]);
    expect(stub.server.requests).toHaveLength(2);
    expect(result.attempts.map((a) => [a.outcome, a.status, a.waitedMs])).toEqual([
      ['rate_limited', 429, 0],
      ['ok', undefined, 7000],
    ]);
    expect(result.text).toBe('done');
  });

  it('retries a 500 with jittered exponential backoff, then succeeds', async () => {
    stub.script.push(() => ({ status: 500, body: { error: { message: 'The server had an error', type: 'server_error' } } }));
    stub.script.push(() => completion('recovered'));
    const { llm, clock } = client();
    const result = await llm.chat([{ role: 'user', content: 'hi' }], { maxTokens: 16 });
    // first retry: cap = 500 ms, equal jitter with random() = 0.5 -> 250 + 125
    expect(clock.sleeps).toEqual([375]);
    expect(result.attempts.map((a) => a.outcome)).toEqual(['server_error', 'ok']);
  });

  it('reports malformed JSON as a malformed_response and does not retry it', async () => {
    stub.script.push(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"id": "chatcmpl-1", "choices": [' }));
    const { llm } = client();
    const failure = await llm.chat([{ role: 'user', content: 'hi' }], { maxTokens: 16 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LlmCallFailedError);
    const failed = failure as LlmCallFailedError;
    expect(failed.attempts.map((a) => a.outcome)).toEqual(['malformed_response']);
    expect(failed.lastError).toBeInstanceOf(ProviderError);
    expect(stub.server.requests).toHaveLength(1);
  });

  it('times out a hanging request and retries it', async () => {
    const { llm } = client();
    // The SDK loads on an adapter's first call (lazily); this test times the calls after it.
    stub.script.push(() => completion('warm'));
    await llm.chat([{ role: 'user', content: 'hi' }], { maxTokens: 16 });
    stub.script.push(() => ({ hang: true }));
    stub.script.push(() => completion('after timeout'));
    const result = await llm.chat([{ role: 'user', content: 'hi' }], { maxTokens: 16, timeoutMs: 150 });
    expect(result.attempts.map((a) => a.outcome)).toEqual(['timeout', 'ok']);
    expect(result.text).toBe('after timeout');
  });

  it('uses a per-user key and never lets it into an error message', async () => {
    const userKey = 'sk-user-key-abcdefghijklmnop';
    stub.script.push((request) => ({
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${String(request.headers.authorization).slice(7)}`, type: 'invalid_request_error', code: 'invalid_api_key' } },
    }));
    const { llm } = client();
    const failure = (await llm.chat([{ role: 'user', content: 'hi' }], { maxTokens: 16, credentials: { openai: userKey } }).catch((e: unknown) => e)) as LlmCallFailedError;
    expect(stub.server.requests[0]!.headers.authorization).toBe(`Bearer ${userKey}`);
    expect(failure.attempts.map((a) => a.outcome)).toEqual(['auth']);
    expect(failure.message).not.toContain(userKey);
    expect(failure.lastError?.message).toContain('[redacted]');
    expect(failure.lastError?.message).not.toContain(userKey);
  });

  it('asks for json_schema output in structured calls', async () => {
    stub.script.push(() => completion('{"answer": 4}'));
    const { llm } = client();
    const result = await llm.structured([{ role: 'user', content: '2 + 2?' }], z.object({ answer: z.number() }), { maxTokens: 32 });
    expect(result.value).toEqual({ answer: 4 });
    const body = stub.server.requests[0]!.json() as { response_format: unknown };
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'response',
        strict: false,
        schema: { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] },
      },
    });
  });
});
