import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequestBody {
  readonly model: string;
  readonly messages: readonly { readonly role: string; readonly content: string }[];
  readonly response_format?: { readonly type: string; readonly json_schema?: { readonly name: string; readonly schema: Record<string, unknown> } };
}

/**
 * A local server answering OpenAI chat completions (`POST /v1/chat/completions`) in the documented
 * wire format, so the skills run through the real OpenAI adapter and resilient client.
 */
export async function startOpenAiWireServer(answer: (body: ChatRequestBody) => unknown): Promise<{ baseUrl: string; bodies: ChatRequestBody[]; close(): Promise<void> }> {
  const bodies: ChatRequestBody[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequestBody;
      bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${bodies.length}`,
          object: 'chat.completion',
          created: 1_763_900_000,
          model: `${body.model}-2024-07-18`,
          choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(answer(body)) }, finish_reason: 'stop', logprobs: null }],
          usage: { prompt_tokens: 300, completion_tokens: 80, total_tokens: 380 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    bodies,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
