import { renderProblemPng } from '@openpaw/testkit';
import { OpenAiChatModel } from '../../llm/openai-chat-model.js';
import { ResilientLlmClient } from '../../llm/resilient-llm-client.js';
import { useScriptedStubServer } from '../../test-support/stub-server.js';
import { OcrReaderError } from '../port.js';
import { VisionLlmReader } from './vision-llm-reader.js';

const KEY = 'sk-test-openai-0123456789abcdef';
const stub = useScriptedStubServer();

const completion = (text: string) => ({
  status: 200,
  body: {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1767225600,
    model: 'gpt-4o-2024-08-06',
    choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 800, completion_tokens: 20, total_tokens: 820 },
  },
});

describe('VisionLlmReader through the LLM port (an OpenAI wire-format server)', () => {
  let image: Buffer;
  beforeAll(async () => {
    image = await renderProblemPng('Solve for y: 5y - 4 = 2y + 11');
  });
  const reader = (): VisionLlmReader => {
    const model = new OpenAiChatModel({ apiKey: KEY, baseURL: `${stub.server.url}/v1`, maxTokensParam: 'max_completion_tokens' });
    return new VisionLlmReader({ llm: new ResilientLlmClient({ models: [model], defaultModel: 'openai/gpt-4o', defaultTimeoutMs: 2_000 }), model: 'openai/gpt-4o', timeoutMs: 2_000 });
  };

  it('sends the image with the transcription instructions and reads LaTeX lines as plain maths, every line unvouched (confidence 0)', async () => {
    stub.script.push(() => completion('Solve for \\( y \\):\n\\( 5 y-4=2 y+11 \\)'));
    const reading = await reader().read(image);
    const sent = stub.server.requests[0]!.json() as { messages: { role: string; content: unknown }[] };
    expect(sent.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('Do not solve, correct, complete or explain anything') });
    expect(sent.messages[1]).toEqual({ role: 'user', content: [{ type: 'text', text: 'The image:' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${image.toString('base64')}` } }] });
    expect(reading).toMatchObject({ reader: 'vision-llm/openai/gpt-4o', local: false });
    expect(reading.lines.map((l) => [l.text, l.confidence, l.latex])).toEqual([
      ['Solve for y:', 0, true],
      ['5y-4=2y+11', 0, true],
    ]);
  });

  it('names what the model marked illegible or wrote in LaTeX that cannot be plain maths', async () => {
    stub.script.push(() => completion('Solve \\( 5 y-[?]=2 y+11 \\)\n\\( \\int_{0}^{1} x \\)'));
    const reading = await reader().read(image);
    expect(reading.lines.map((l) => l.unread)).toEqual(['a character the model marked illegible ([?])', 'the LaTeX command \\int']);
  });

  it('fails with OcrReaderError when the model call fails', async () => {
    stub.script.push(() => ({ status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } }));
    await expect(reader().read(image)).rejects.toThrow(OcrReaderError);
  });
});
