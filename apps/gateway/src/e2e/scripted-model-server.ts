import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A chat-completions request as the OpenAI adapter sends it. */
export interface ChatCompletionRequest {
  readonly model: string;
  readonly messages: readonly { readonly role: string; readonly content: string }[];
  readonly response_format?: { readonly type: string; readonly json_schema?: { readonly name: string; readonly schema: { readonly properties?: Record<string, unknown> } } };
}

/** What the script answers: the assistant's content, or an HTTP error as the real API sends it; after `delayMs` (a slow model). */
export type ScriptedReply = ({ readonly content: string } | { readonly status: number; readonly message: string }) & { readonly delayMs?: number };

export interface ScriptedModelServer {
  /** `http://127.0.0.1:<port>/v1`, for `OPENAI_BASE_URL`. */
  readonly baseUrl: string;
  readonly requests: ChatCompletionRequest[];
  /** The W3C `traceparent` header of each request that carried one (the caller's trace travels on). */
  readonly traceparents: string[];
  close(): Promise<void>;
}

/**
 * A local server speaking OpenAI's chat-completions wire format, answering from a test's script:
 * the model behind the provider port in end-to-end tests (services run the real OpenAI adapter and
 * resilient client against it). The reported model is the requested one.
 */
export async function startScriptedModelServer(script: (request: ChatCompletionRequest) => ScriptedReply): Promise<ScriptedModelServer> {
  const requests: ChatCompletionRequest[] = [];
  const traceparents: string[] = [];
  const server = createServer((req, res) => {
    void readJson(req)
      .then(async (body) => {
        if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
          return;
        }
        requests.push(body);
        const traceparent = req.headers['traceparent'];
        if (typeof traceparent === 'string') traceparents.push(traceparent);
        const answer = script(body);
        await delay(answer.delayMs ?? 0);
        if ('status' in answer) {
          res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: answer.message, type: 'server_error', code: null } }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: `chatcmpl-${requests.length}`,
            object: 'chat.completion',
            created: 1_763_900_000,
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: answer.content }, finish_reason: 'stop', logprobs: null }],
            usage: { prompt_tokens: 300, completion_tokens: 120, total_tokens: 420 },
          }),
        );
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    traceparents,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

// unref: a reply still being delayed when the test ends must not hold the process open.
const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

async function readJson(req: IncomingMessage): Promise<ChatCompletionRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return (text === '' ? {} : JSON.parse(text)) as ChatCompletionRequest;
}

/** The field names of the JSON schema a structured request asks for (empty for free text). */
export function schemaFields(request: ChatCompletionRequest): string[] {
  return Object.keys(request.response_format?.json_schema?.schema.properties ?? {});
}
