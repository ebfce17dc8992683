import { z } from 'zod';
import { fakeClock, useScriptedStubServer } from '../test-support/stub-server.js';
import { AnthropicChatModel, toAnthropicMessages } from './anthropic-chat-model.js';
import { LlmCallFailedError } from './errors.js';
import { ResilientLlmClient } from './resilient-llm-client.js';

const KEY = 'sk-ant-test-0123456789abcdef';
const stub = useScriptedStubServer();
const IMAGE = { mimeType: 'image/png' as const, data: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) };
const IMAGE_BASE64 = 'iVBORw0KGgo=';

function message(text: string, model = 'claude-haiku-4-5-20251001') {
  return {
    status: 200,
    body: {
      id: 'msg_01',
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 20, output_tokens: 8, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
  };
}

function anthropicError(status: number, type: string, text: string, headers: Record<string, string> = {}) {
  return { status, headers, body: { type: 'error', error: { type, message: text } } };
}

function client(options: { nativeStructuredOutput?: boolean } = {}) {
  const clock = fakeClock();
  const model = new AnthropicChatModel({ apiKey: KEY, baseURL: stub.server.url, clock, ...options });
  return { clock, llm: new ResilientLlmClient({ models: [model], defaultModel: 'anthropic/claude-haiku-4-5', clock, random: () => 0.5, defaultTimeoutMs: 2_000 }) };
}


describe('AnthropicChatModel against an Anthropic Messages wire-format server', () => {
  it('sends a user message\'s images as base64 image blocks before its text', async () => {
    stub.script.push(() => message('5y - 4 = 2y + 11'));
    const { llm } = client();
    await llm.chat([{ role: 'user', content: 'Transcribe the problem.', images: [IMAGE] }], { maxTokens: 64 });
    expect((stub.server.requests[0]!.json() as { messages: unknown }).messages).toEqual([
      { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: IMAGE_BASE64 } }, { type: 'text', text: 'Transcribe the problem.' }] },
    ]);
  });

  it('sends a Messages request (without the deprecated temperature) and reports usage, answering model and cost', async () => {
    stub.script.push(() => message('Paris'));
    const { llm } = client();
    const result = await llm.chat(
      [
        { role: 'system', content: 'Answer in one word.' },
        { role: 'user', content: 'Capital of France?' },
      ],
      { maxTokens: 50, temperature: 0.3 },
    );
    const request = stub.server.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.url.pathname).toBe('/v1/messages');
    // @anthropic-ai/sdk 1.x sends the API key as a bearer token (older majors used x-api-key).
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(request.json()).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 50,
      system: 'Answer in one word.',
      messages: [{ role: 'user', content: 'Capital of France?' }],
    });
    expect(result).toMatchObject({
      text: 'Paris',
      model: 'anthropic/claude-haiku-4-5-20251001',
      usage: { inputTokens: 20, outputTokens: 8 },
      finishReason: 'end_turn',
      pricing: 'table',
    });
    // claude-haiku-4-5: $1 / $5 per million tokens
    expect(result.costUsd).toBeCloseTo((20 * 1 + 8 * 5) / 1e6, 12);
  });

  it('retries a 429 after the Retry-After delay, on the injected clock', async () => {
    stub.script.push(() => anthropicError(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit', { 'retry-after': '3' }));
    stub.script.push(() => message('ok'));
    const { llm, clock } = client();
    const result = await llm.chat([{ role: 'user', content: 'hi' }], { maxTokens: 16 });
    expect(clock.sleeps).toEqual([3000]);
    expect(result.attempts.map((a) => [a.outcome, a.status])).toEqual([
      ['rate_limited', 429],
      ['ok', undefined],
    ]);
  });

  it('retries an overloaded 529 / 500 and then succeeds', async () => {
    stub.script.push(() => anthropicError(529, 'overloaded_error', 'Overloaded'));
    stub.script.push(() => anthropicError(500, 'api_error', 'Internal server error'));
    stub.script.push(() => message('ok'));
    const { llm, clock } = client();
    const result = await llm.chat([{ role: 'user', content: 'hi' }], { maxTokens: 16 });
    expect(clock.sleeps).toEqual([375, 750]);
    expect(result.attempts.map((a) => a.outcome)).toEqual(['server_error', 'server_error', 'ok']);
  });

  it('reports malformed JSON as a malformed_response', async () => {
    stub.script.push(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"type":"message", "content": [' }));
    const { llm } = client();
    const failure = (await llm.chat([{ role: 'user', content: 'hi' }], { maxTokens: 16 }).catch((e: unknown) => e)) as LlmCallFailedError;
    expect(failure).toBeInstanceOf(LlmCallFailedError);
    expect(failure.attempts.map((a) => a.outcome)).toEqual(['malformed_response']);
  });

  it('times out a hanging request and retries it', async () => {
    stub.script.push(() => ({ hang: true }));
    stub.script.push(() => message('after timeout'));
    const { llm } = client();
    const result = await llm.chat([{ role: 'user', content: 'hi' }], { maxTokens: 16, timeoutMs: 150 });
    expect(result.attempts.map((a) => a.outcome)).toEqual(['timeout', 'ok']);
  });

  it('puts the schema in the system prompt, or in output_config when native structured output is on', async () => {
    const schema = z.object({ city: z.string() });
    stub.script.push(() => message('{"city":"Paris"}'));
    const prompted = await client().llm.structured([{ role: 'user', content: 'Capital of France?' }], schema, { maxTokens: 32 });
    expect(prompted.value).toEqual({ city: 'Paris' });
    const first = stub.server.requests[0]!.json() as Record<string, unknown>;
    expect(first['system']).toContain('JSON Schema');
    expect(first['output_config']).toBeUndefined();

    stub.script.push(() => message('{"city":"Paris"}'));
    await client({ nativeStructuredOutput: true }).llm.structured([{ role: 'user', content: 'Capital of France?' }], schema, { maxTokens: 32 });
    expect((stub.server.requests[1]!.json() as Record<string, unknown>)['output_config']).toEqual({
      format: { type: 'json_schema', schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
    });
  });

  it('turns chat history into alternating turns with a system parameter', () => {
    expect(
      toAnthropicMessages([
        { role: 'system', content: 'a' },
        { role: 'assistant', content: 'b' },
        { role: 'assistant', content: 'c' },
        { role: 'system', content: 'd' },
        { role: 'user', content: 'e' },
      ]),
    ).toEqual({
      system: 'a\n\nd',
      messages: [
        { role: 'user', content: '(continue)' },
        { role: 'assistant', content: 'b\n\nc' },
        { role: 'user', content: 'e' },
      ],
    });
  });
});
