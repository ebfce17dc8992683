import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One chat request as a wire server received it, in a provider-neutral shape. */
export interface WireRequest {
  readonly provider: 'openai' | 'anthropic';
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The bearer token or x-api-key the client sent. */
  readonly apiKey: string | undefined;
  readonly model: string;
  readonly system: string;
  /** The user's (last) message. */
  readonly user: string;
  readonly body: Record<string, unknown>;
}

/**
 * What to answer: text (200), an HTTP error, or nothing until aborted (a hung provider). A text with
 * `stoppedAtLimit` ends as a model that ran out of output tokens does (`max_tokens` / `length`).
 */
export type WireAnswer =
  | { readonly text: string; readonly delayMs?: number; readonly inputTokens?: number; readonly outputTokens?: number; readonly stoppedAtLimit?: boolean }
  | {
      readonly status: number;
      readonly message: string;
      readonly retryAfterSeconds?: number;
      /** The error's `type` as the provider documents it (OpenAI: `insufficient_quota`, ...; Anthropic: `authentication_error`, ...); `server_error` / `api_error` when omitted. */
      readonly errorType?: string;
    }
  | { readonly hang: true };

export interface LlmWireServer {
  /** The base URL to give the SDK (`OPENAI_BASE_URL` ends in `/v1`; `ANTHROPIC_BASE_URL` is the root). */
  readonly baseUrl: string;
  readonly requests: WireRequest[];
  close(): Promise<void>;
}

/** Listens on a free 127.0.0.1 port; `close` also ends the hung responses (a wire server's `hang`). */
export async function listen(server: Server, hanging: Set<ServerResponse>): Promise<{ port: number; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function start(provider: WireRequest['provider'], answer: (request: WireRequest) => WireAnswer | Promise<WireAnswer>): Promise<LlmWireServer> {
  const requests: WireRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      const messages = (body['messages'] as { role: string; content: unknown }[] | undefined) ?? [];
      const text = (c: unknown): string => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: { text?: string }) => p.text ?? '').join('') : '');
      const system = provider === 'anthropic' ? text(body['system']) : messages.filter((m) => m.role === 'system').map((m) => text(m.content)).join('\n');
      const user = text(messages.filter((m) => m.role === 'user').at(-1)?.content);
      const auth = req.headers.authorization;
      const apiKey = auth?.startsWith('Bearer ') === true ? auth.slice(7) : (req.headers['x-api-key'] as string | undefined);
      const request: WireRequest = { provider, path: req.url ?? '/', headers: req.headers, apiKey, model: String(body['model']), system, user, body };
      requests.push(request);
      void Promise.resolve(answer(request)).then(async (a) => {
        if ('hang' in a) {
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return;
        }
        if ('status' in a) {
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (a.retryAfterSeconds !== undefined) headers['retry-after'] = String(a.retryAfterSeconds);
          res.writeHead(a.status, headers);
          res.end(
            JSON.stringify(
              provider === 'anthropic'
                ? { type: 'error', error: { type: a.errorType ?? 'api_error', message: a.message } }
                : { error: { message: a.message, type: a.errorType ?? 'server_error', code: a.errorType ?? null } },
            ),
          );
          return;
        }
        if (a.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, a.delayMs));
        const inputTokens = a.inputTokens ?? Math.ceil((system.length + user.length) / 4);
        const outputTokens = a.outputTokens ?? Math.ceil(a.text.length / 4);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify(
            provider === 'anthropic'
              ? {
                  id: `msg_${requests.length}`,
                  type: 'message',
                  role: 'assistant',
                  model: request.model,
                  content: [{ type: 'text', text: a.text }],
                  stop_reason: a.stoppedAtLimit === true ? 'max_tokens' : 'end_turn',
                  stop_sequence: null,
                  usage: { input_tokens: inputTokens, output_tokens: outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
                }
              : {
                  id: `chatcmpl-${requests.length}`,
                  object: 'chat.completion',
                  created: 1_763_900_000,
                  model: request.model,
                  choices: [{ index: 0, message: { role: 'assistant', content: a.text }, finish_reason: a.stoppedAtLimit === true ? 'length' : 'stop', logprobs: null }],
                  usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
                },
          ),
        );
      });
    });
  });
  const listening = listen(server, hanging);
  return listening.then(({ port, close }) => ({
    baseUrl: provider === 'openai' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`,
    requests,
    close,
  }));
}

/** A local server speaking OpenAI chat completions (`POST /v1/chat/completions`), as any OpenAI-compatible server does. */
export function startOpenAiWireServer(answer: (request: WireRequest) => WireAnswer | Promise<WireAnswer>): Promise<LlmWireServer> {
  return start('openai', answer);
}

/** A local server speaking Anthropic's Messages API (`POST /v1/messages`). */
export function startAnthropicWireServer(answer: (request: WireRequest) => WireAnswer | Promise<WireAnswer>): Promise<LlmWireServer> {
  return start('anthropic', answer);
}
