import { z } from 'zod';
import { fakeClock, useScriptedStubServer } from '../test-support/stub-server.js';
import { LlmCallFailedError } from './errors.js';
import { GeminiChatModel } from './gemini-chat-model.js';
import { ResilientLlmClient } from './resilient-llm-client.js';

const KEY = 'AIzaTestKey0123456789abcdefghij';
const stub = useScriptedStubServer();
const IMAGE = { mimeType: 'image/png' as const, data: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) };
const IMAGE_BASE64 = 'iVBORw0KGgo=';

function generated(text: string, modelVersion = 'gemini-2.5-flash') {
  return {
    status: 200,
    body: {
      candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 30, candidatesTokenCount: 10, thoughtsTokenCount: 4, totalTokenCount: 44 },
      modelVersion,
      responseId: 'resp-1',
    },
  };
}

function googleError(status: number, statusText: string, text: string, headers: Record<string, string> = {}) {
  return { status, headers, body: { error: { code: status, message: text, status: statusText } } };
}

function client() {
  const clock = fakeClock();
  const model = new GeminiChatModel({ apiKey: KEY, baseUrl: stub.server.url, clock });
  return { clock, llm: new ResilientLlmClient({ models: [model], defaultModel: 'gemini/gemini-2.5-flash', clock, random: () => 0.5, defaultTimeoutMs: 2_000 }) };
}


describe('GeminiChatModel against a Gemini generateContent wire-format server', () => {
  it('sends a user message\'s images as inlineData parts after its text', async () => {
    stub.script.push(() => generated('5y - 4 = 2y + 11'));
    const { llm } = client();
    await llm.chat([{ role: 'user', content: 'Transcribe the problem.', images: [IMAGE] }], { maxTokens: 64 });
    expect((stub.server.requests[0]!.json() as { contents: unknown }).contents).toEqual([
      { role: 'user', parts: [{ text: 'Transcribe the problem.' }, { inlineData: { mimeType: 'image/png', data: IMAGE_BASE64 } }] },
    ]);
  });

  it('sends generateContent and reports usage (thinking billed as output), answering model and cost', async () => {
    stub.script.push(() => generated('Paris'));
    const { llm } = client();
    const result = await llm.chat(
      [
        { role: 'system', content: 'Answer in one word.' },
        { role: 'user', content: 'Capital of France?' },
        { role: 'assistant', content: 'Paris' },
        { role: 'user', content: 'Again?' },
      ],
      { maxTokens: 40, temperature: 0.1 },
    );
    const request = stub.server.requests[0]!;
    expect(request.method).toBe('POST');
    // @google/genai 3.x defaults to the v1 surface of the Gemini API.
    expect(request.url.pathname).toBe('/v1/models/gemini-2.5-flash:generateContent');
    expect(request.headers['x-goog-api-key']).toBe(KEY);
    expect(request.json()).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Capital of France?' }] },
        { role: 'model', parts: [{ text: 'Paris' }] },
        { role: 'user', parts: [{ text: 'Again?' }] },
      ],
      systemInstruction: { parts: [{ text: 'Answer in one word.' }], role: 'user' },
      generationConfig: { temperature: 0.1, maxOutputTokens: 40 },
    });
    expect(result).toMatchObject({
      text: 'Paris',
      model: 'gemini/gemini-2.5-flash',
      usage: { inputTokens: 30, outputTokens: 14 },
      finishReason: 'STOP',
    });
    // gemini-2.5-flash: $0.30 / $2.50 per million tokens
    expect(result.costUsd).toBeCloseTo((30 * 0.3 + 14 * 2.5) / 1e6, 12);
  });

  it('retries a 429 after the Retry-After delay, on the injected clock', async () => {
    stub.script.push(() => googleError(429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted', { 'retry-after': '2' }));
    stub.script.push(() => generated('ok'));
    const { llm, clock } = client();
    const result = await llm.chat([{ role: 'user', content: 'hi' }], { maxTokens: 16 });
    expect(clock.sleeps).toEqual([2000]);
    expect(result.attempts.map((a) => [a.outcome, a.status])).toEqual([
      ['rate_limited', 429],
      ['ok', undefined],
    ]);
  });

  it('retries a 500 with backoff, then succeeds', async () => {
    stub.script.push(() => googleError(500, 'INTERNAL', 'An internal error has occurred'));
    stub.script.push(() => generated('ok'));
    const { llm, clock } = client();
    const result = await llm.chat([{ role: 'user', content: 'hi' }], { maxTokens: 16 });
    expect(clock.sleeps).toEqual([375]);
    expect(result.attempts.map((a) => a.outcome)).toEqual(['server_error', 'ok']);
  });

  it('reports malformed JSON as a malformed_response', async () => {
    stub.script.push(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"candidates": [' }));
    const { llm } = client();
    const failure = (await llm.chat([{ role: 'user', content: 'hi' }], { maxTokens: 16 }).catch((e: unknown) => e)) as LlmCallFailedError;
    expect(failure).toBeInstanceOf(LlmCallFailedError);
    expect(failure.attempts.map((a) => a.outcome)).toEqual(['malformed_response']);
  });

  it('times out a hanging request and retries it', async () => {
    stub.script.push(() => ({ hang: true }));
    stub.script.push(() => generated('after timeout'));
    const { llm } = client();
    // Long enough that the retry's instant answer is in time on a loaded machine (at 150 ms, load 15 timed
    // it out too; at 1 s, CI69 at load 4–7 once did: a jest worker can stall for a second).
    const result = await llm.chat([{ role: 'user', content: 'hi' }], { maxTokens: 16, timeoutMs: 3_000 });
    expect(result.attempts.map((a) => a.outcome)).toEqual(['timeout', 'ok']);
  });

  it('asks for JSON with the response schema in structured calls', async () => {
    stub.script.push(() => generated('{"city":"Paris"}'));
    const { llm } = client();
    const result = await llm.structured([{ role: 'user', content: 'Capital of France?' }], z.object({ city: z.string() }), { maxTokens: 32 });
    expect(result.value).toEqual({ city: 'Paris' });
    const body = stub.server.requests[0]!.json() as { generationConfig: Record<string, unknown> };
    expect(body.generationConfig).toMatchObject({
      responseMimeType: 'application/json',
      responseJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    });
  });
});
