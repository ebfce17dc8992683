import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WireRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** Aborted when the client hangs up before its answer is sent (an adapter's call aborted). */
  readonly abandoned: AbortSignal;
}

export interface WireResponse {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
}

export interface WireServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: WireRequest[];
  close(): Promise<void>;
}

/**
 * A node:http server on 127.0.0.1 for wire-level tests of the real adapters this service uses (paid
 * APIs: SerpApi, Rekognition, an OpenAI-compatible LLM, and the image hosts the searches point to).
 * `respond` speaks the provider's documented format; every request is recorded.
 */
export async function startWireServer(respond: (request: WireRequest) => WireResponse | Promise<WireResponse>): Promise<WireServer> {
  const requests: WireRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const hungUp = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) hungUp.abort();
      });
      const request: WireRequest = { method: req.method ?? 'GET', url: new URL(req.url ?? '/', 'http://127.0.0.1'), headers: req.headers, body: Buffer.concat(chunks), abandoned: hungUp.signal };
      requests.push(request);
      void Promise.resolve()
        .then(() => respond(request))
        .catch((error: unknown): WireResponse => ({ status: 599, body: String(error) }))
        .then((response) => {
          res.writeHead(response.status ?? 200, response.headers ?? {});
          res.end(response.body ?? '');
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** An OpenAI chat-completions reply carrying `content`. */
export function openAiChatReply(content: string, model = 'gpt-4o-mini-2024-07-18'): WireResponse {
  return {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1_764_000_000,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 },
    }),
  };
}
