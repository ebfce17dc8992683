import { fakeClock, type RecordedRequest, useScriptedStubServer } from '../test-support/stub-server.js';
import { ProviderError } from './errors.js';
import { OpenAiChatModel } from './openai-chat-model.js';

const KEY = 'sk-test-openai-0123456789abcdef';
const MODEL = 'o3-deep-research';
const stub = useScriptedStubServer();

/** A Responses API object as OpenAI documents it (only the fields the adapter reads, plus the usual ones). */
function response(status: string, extra: Record<string, unknown> = {}) {
  return {
    status: 200,
    body: { id: 'resp_deep_1', object: 'response', created_at: 1767225600, model: 'o3-deep-research-2025-06-26', status, output: [], usage: null, error: null, incomplete_details: null, ...extra },
  };
}

const completed = response('completed', {
  output: [
    { type: 'web_search_call', id: 'ws_1', status: 'completed' },
    { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Heat pumps keep a COP above 2 at -15 °C.', annotations: [] }] },
  ],
  usage: { input_tokens: 1200, output_tokens: 800, total_tokens: 2000 },
});

function model(clock = fakeClock()) {
  return { clock, adapter: new OpenAiChatModel({ apiKey: KEY, baseURL: `${stub.server.url}/v1`, clock, pollBackoff: { initialMs: 1_000, factor: 2, maxMs: 3_000, maxPollFailures: 2 } }) };
}

const request = () => ({
  model: MODEL,
  messages: [{ role: 'user' as const, content: 'How efficient are cold-climate heat pumps?' }],
  temperature: 0.3,
  maxTokens: 4_000,

});

const paths = (): string[] => stub.server.requests.map((r: RecordedRequest) => `${r.method} ${r.url.pathname}`);

describe('deep research models: background responses polled with backoff', () => {
  it('given a deep research model, when the response runs for a while, then it is created in the background and polled with growing waits until it completes', async () => {
    stub.script.push(() => response('queued'), () => response('in_progress'), () => ({ status: 503, body: { error: { message: 'overloaded' } } }), () => response('in_progress'), () => completed);
    const { clock, adapter } = model();
    const answer = await adapter.complete({ ...request(), signal: new AbortController().signal });

    expect(answer).toMatchObject({ text: 'Heat pumps keep a COP above 2 at -15 °C.', model: 'o3-deep-research-2025-06-26', usage: { inputTokens: 1200, outputTokens: 800 } });
    expect(paths()).toEqual(['POST /v1/responses', ...Array.from({ length: 4 }, () => 'GET /v1/responses/resp_deep_1')]);
    expect(stub.server.requests[0]?.json()).toMatchObject({ model: MODEL, background: true, max_output_tokens: 4_000, tools: [{ type: 'web_search_preview' }] });
    // Backoff: 1 s, 2 s, then capped at 3 s; the failed poll (503) did not end the call.
    expect(clock.sleeps).toEqual([1_000, 2_000, 3_000, 3_000]);
  });

  it('given the leg is stopped while the response runs, then the response is cancelled and the call fails aborted', async () => {
    const controller = new AbortController();
    stub.script.push(
      () => response('queued'),
      () => {
        controller.abort();
        return response('in_progress');
      },
      () => response('cancelled'),
    );
    const { adapter } = model();
    const failure = await adapter.complete({ ...request(), signal: controller.signal }).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ProviderError);
    expect((failure as ProviderError).kind).toBe('aborted');
    expect(paths()).toEqual(['POST /v1/responses', 'GET /v1/responses/resp_deep_1', 'POST /v1/responses/resp_deep_1/cancel']);
  });

  it('given the response fails, then the call fails with its reason; given polls keep failing, then it gives up after the tolerated failures', async () => {
    stub.script.push(() => response('queued'), () => response('failed', { error: { code: 'invalid_prompt', message: 'the prompt was refused' } }));
    const failed = await model().adapter.complete({ ...request(), signal: new AbortController().signal }).catch((error: unknown) => error);
    expect(failed).toMatchObject({ kind: 'bad_request', message: expect.stringContaining('the prompt was refused') });

    stub.server.requests.splice(0);
    const overloaded = () => ({ status: 503, body: { error: { message: 'overloaded' } } });
    stub.script.push(() => response('queued'), overloaded, overloaded, overloaded);
    const gaveUp = await model().adapter.complete({ ...request(), signal: new AbortController().signal }).catch((error: unknown) => error);
    expect(gaveUp).toMatchObject({ kind: 'server_error' });
    expect(paths()).toHaveLength(4);
  });

  it('given a ledger, when the call is repeated (its polls gave up, or its command came back after the pod was replaced), then the repeat resumes the kept response and creates none: billed once', async () => {
    const kept = new Map<string, string>();
    const ledger = { recall: () => Promise.resolve(kept.get('cmd-1')), keep: (id: string) => Promise.resolve(void kept.set('cmd-1', id)) };
    const overloaded = () => ({ status: 503, body: { error: { message: 'overloaded' } } });
    // The first attempt: created, kept before its first poll, then it gives up on failing polls while the response runs on.
    stub.script.push(() => response('queued'), overloaded, overloaded, overloaded);
    const gaveUp = await model().adapter.complete({ ...request(), signal: new AbortController().signal, backgroundCalls: ledger }).catch((error: unknown) => error);
    expect(gaveUp).toMatchObject({ kind: 'server_error' });
    expect(kept.get('cmd-1')).toBe('resp_deep_1');
    // The repeat polls the same response to its end.
    stub.server.requests.splice(0);
    stub.script.push(() => response('in_progress'), () => completed);
    const answer = await model().adapter.complete({ ...request(), signal: new AbortController().signal, backgroundCalls: ledger });
    expect(answer.text).toBe('Heat pumps keep a COP above 2 at -15 °C.');
    expect(paths()).toEqual(['GET /v1/responses/resp_deep_1', 'GET /v1/responses/resp_deep_1']);
  });

  it('given a kept id OpenAI no longer has, then the call starts a new response and keeps it', async () => {
    const kept = new Map<string, string>([['cmd-2', 'resp_gone']]);
    const ledger = { recall: () => Promise.resolve(kept.get('cmd-2')), keep: (id: string) => Promise.resolve(void kept.set('cmd-2', id)) };
    stub.script.push(() => ({ status: 404, body: { error: { message: 'No response found with id resp_gone' } } }), () => completed);
    const answer = await model().adapter.complete({ ...request(), signal: new AbortController().signal, backgroundCalls: ledger });
    expect(answer.text).toBe('Heat pumps keep a COP above 2 at -15 °C.');
    expect(paths()).toEqual(['GET /v1/responses/resp_gone', 'POST /v1/responses']);
    expect(kept.get('cmd-2')).toBe('resp_deep_1');
  });

  it('given an ordinary model, then it is a chat completion as before (no background response)', async () => {
    stub.script.push(() => ({
      status: 200,
      body: { id: 'c1', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1 } },
    }));
    const answer = await model().adapter.complete({ ...request(), model: 'gpt-4o-mini', signal: new AbortController().signal });
    expect(answer.text).toBe('ok');
    expect(paths()).toEqual(['POST /v1/chat/completions']);
  });
});
