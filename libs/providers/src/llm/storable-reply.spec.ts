import { z } from 'zod';
import { fakeClock } from '../test-support/stub-server.js';
import type { ChatModel, ChatModelRequest, ChatModelResponse } from './port.js';
import { ResilientLlmClient } from './resilient-llm-client.js';

/** A provider answering `text` to every call. */
class FixedReplyModel implements ChatModel {
  readonly provider = 'openai';
  readonly hasDefaultCredentials = true;
  constructor(private readonly text: string) {}
  complete(_request: ChatModelRequest): Promise<ChatModelResponse> {
    return Promise.resolve({ text: this.text, model: 'openai/gpt-4o-mini', usage: { inputTokens: 1, outputTokens: 1 } });
  }
}

const client = (text: string): ResilientLlmClient =>
  new ResilientLlmClient({ models: [new FixedReplyModel(text)], defaultModel: 'openai/gpt-4o-mini', fallbackModels: [], clock: fakeClock(), random: () => 0 });
const hi = [{ role: 'user' as const, content: 'hi' }];

describe('LLM replies are made storable at the client boundary', () => {
  it('drops NUL and replaces lone surrogates in chat text', async () => {
    const result = await client('the answer\u0000 is \uD83D 42').chat(hi, { maxTokens: 10 });
    expect(result.text).toBe('the answer is \uFFFD 42');
  });

  it('repairs strings a structured reply escapes (a \\u0000 in the JSON)', async () => {
    const result = await client('{"title":"Photo\\u0000synthesis","tags":["\\udc3e"]}').structured(hi, z.object({ title: z.string(), tags: z.array(z.string()) }), { maxTokens: 10 });
    expect(result.value).toEqual({ title: 'Photosynthesis', tags: ['\uFFFD'] });
  });
});
