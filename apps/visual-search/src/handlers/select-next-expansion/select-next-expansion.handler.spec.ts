import { ExpansionSelected } from '@openpaw/contracts';
import { replyAs } from '@openpaw/messaging';
import { LocalChatModel, OpenAiChatModel, ResilientLlmClient } from '@openpaw/providers';
import { InMemoryRunMemory } from '../../memory/in-memory-run-memory.js';
import { openAiChatReply, startWireServer, type WireResponse, type WireServer } from '../../testing/wire-server.js';
import { SelectNextExpansionHandler } from './select-next-expansion.handler.js';

const RUN = '5e5e5e5e-2b1c-4c1e-9a55-3c3c9d1f8a10';
const candidates = [
  { person: { name: 'Hugo Dunfield', celebrityId: 'c-hugo' }, count: 1, bestConfWithFrontier: 97 },
  { person: { name: 'Kira Solvale', celebrityId: 'c-kira' }, count: 3, bestConfWithFrontier: 97 },
];
const command = (commandId: string, llmCalls = 3) => ({
  commandId,
  data: {
    sessionId: 's',
    runId: RUN,
    step: 4,
    target: { name: 'Zora Venmont' },
    frontier: { name: 'Ada Belwick', celebrityId: 'c-ada' },
    candidates,
    hopsRemaining: 4,
    budgetsRemaining: { searchCalls: 8, recognitionCalls: 40, llmCalls },
  },
});

describe('SelectNextExpansion through the LLM port (OpenAI wire format)', () => {
  let server: WireServer;
  const script: WireResponse[] = [];
  beforeAll(async () => {
    server = await startWireServer(() => script.shift() ?? { status: 500, body: '{}' });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    script.length = 0;
    server.requests.length = 0;
  });
  const handler = () =>
    new SelectNextExpansionHandler({
      llm: new ResilientLlmClient({ models: [new OpenAiChatModel({ apiKey: 'sk-test-visual', baseURL: `${server.url}/v1` })], defaultModel: 'openai/gpt-4o-mini', retry: { maxAttempts: 1 } }),
      memory: new InMemoryRunMemory(),
    });

  it('takes a valid strict-JSON choice from the LLM', async () => {
    script.push(openAiChatReply(JSON.stringify({ nextCandidates: ['c-hugo'], searchQueries: ['Ada Belwick Hugo Dunfield gala'], narration: 'Trying an expansion via Hugo Dunfield…' })));
    const reply = replyAs(await handler().execute(command('cmd-1')), ExpansionSelected);
    expect(reply.data).toMatchObject({ decidedBy: 'llm', nextCandidates: [{ celebrityId: 'c-hugo' }], searchQueries: ['Ada Belwick Hugo Dunfield gala'], usage: { llmCalls: 1 } });
    expect(reply.data.fallbackReason).toBeUndefined();
    const sent = JSON.parse(server.requests[0]!.body.toString('utf8')) as { messages: { content: string }[]; temperature: number };
    expect(sent.messages.map((m) => m.content).join('\n')).toContain('Target: Zora Venmont');
    expect(sent.temperature).toBe(0);
  });

  it.each([
    ['prose', 'Kira looks best.', 'invalid_json'],
    ['a person who is not a candidate', JSON.stringify({ nextCandidates: ['Kanye West'], searchQueries: [], narration: '' }), 'invalid_choice'],
  ])('falls back deterministically on %s', async (_what, content, reason) => {
    script.push(openAiChatReply(content));
    const reply = await handler().execute(command('cmd-2'));
    expect(reply.data).toMatchObject({ decidedBy: 'fallback', fallbackReason: reason, nextCandidates: [{ celebrityId: 'c-kira' }], usage: { llmCalls: 1 } });
  });

  it('falls back when the LLM is unavailable, and without calling it when no LLM budget is left', async () => {
    script.push({ status: 503, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: { message: 'overloaded' } }) });
    expect((await handler().execute(command('cmd-3'))).data).toMatchObject({ decidedBy: 'fallback', fallbackReason: 'llm_unavailable' });
    const before = server.requests.length;
    expect((await handler().execute(command('cmd-4', 0))).data).toMatchObject({ decidedBy: 'fallback', fallbackReason: 'no_llm_budget', usage: { llmCalls: 0 } });
    expect(server.requests.length).toBe(before);
  });

  it('with the local model (no LLM configured) ranks deterministically without asking or charging it', async () => {
    const local = new SelectNextExpansionHandler({ llm: new ResilientLlmClient({ models: [new LocalChatModel()], defaultModel: 'local/deterministic' }), memory: new InMemoryRunMemory() });
    const reply = await local.execute(command('cmd-5'));
    expect(reply.data).toMatchObject({ decidedBy: 'fallback', fallbackReason: 'no_llm_configured', nextCandidates: [{ celebrityId: 'c-kira' }], usage: { llmCalls: 0, costUsd: 0 } });
    expect(await local.execute(command('cmd-5'))).toEqual(reply);
  });

  it('picks the target when it is among the candidates, without asking the LLM', async () => {
    const before = server.requests.length;
    const zora = { person: { name: 'Zora Venmont', celebrityId: 'c-zora' }, count: 1, bestConfWithFrontier: 84 };
    const withTarget = command('cmd-6');
    const reply = await handler().execute({ ...withTarget, data: { ...withTarget.data, candidates: [...candidates, zora] } });
    expect(reply.data).toMatchObject({ decidedBy: 'fallback', fallbackReason: 'target_found', nextCandidates: [{ celebrityId: 'c-zora' }], usage: { llmCalls: 0 } });
    expect(server.requests.length).toBe(before);
  });
});
