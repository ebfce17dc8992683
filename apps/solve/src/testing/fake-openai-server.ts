import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly path: string;
  readonly authorization: string | undefined;
  readonly body: { readonly model?: string; readonly messages?: readonly { role: string; content: string }[] } & Record<string, unknown>;
}

export interface FakeOpenAiServer {
  /** `http://127.0.0.1:<port>/v1`, for `OPENAI_BASE_URL`. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A local server speaking OpenAI's documented chat-completions wire format, for testing the real
 * OpenAI adapter (a paid API) at the protocol level. `reply` gives the assistant's content and the
 * usage to report for each request; the reported model is a dated snapshot of the requested one.
 */
export async function startFakeOpenAiServer(
  reply: (request: RecordedRequest) => { readonly content: string; readonly promptTokens: number; readonly completionTokens: number },
): Promise<FakeOpenAiServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    void readJson(req).then((body) => {
      const request: RecordedRequest = { path: req.url ?? '', authorization: req.headers.authorization, body };
      requests.push(request);
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
        return;
      }
      const answer = reply(request);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          created: 1_700_000_000,
          model: `${String(body.model)}-2024-07-18`,
          choices: [{ index: 0, message: { role: 'assistant', content: answer.content }, finish_reason: 'stop', logprobs: null }],
          usage: { prompt_tokens: answer.promptTokens, completion_tokens: answer.completionTokens, total_tokens: answer.promptTokens + answer.completionTokens },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function readJson(req: IncomingMessage): Promise<RecordedRequest['body']> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : (JSON.parse(text) as RecordedRequest['body']);
}
