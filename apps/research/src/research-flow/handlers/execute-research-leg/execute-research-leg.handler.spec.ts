import { isReplyOf } from '@openpaw/messaging';
import { type ExecuteResearchLeg, type MessageData, ResearchLegCompleted, ResearchLegFailed } from '@openpaw/contracts';
import { type LlmWireServer, startAnthropicWireServer, startOpenAiWireServer, type WireAnswer, type WireRequest } from '@openpaw/testkit';
import { systemClock } from '@openpaw/providers';
import { LOCAL_LABEL } from '../../researchers/local-extractive-researcher.js';
import { ExecuteResearchLegHandler } from './execute-research-leg.handler.js';
import { flowFixture, type FlowFixture } from '../../testing/flow-fixtures.js';

const RUN = '00000000-0000-4000-8000-00000000aaaa';
const USER = 'user-7';
const OPENAI_KEY = 'sk-openai-user-7-0123456789';
const ANTHROPIC_KEY = 'sk-ant-user-7-0123456789';
const PROMPT = 'How efficient are cold-climate heat pumps compared with gas boilers?';
const FIELD_STUDY = {
  title: 'Field study 2023',
  content:
    'Cold-climate heat pumps kept a coefficient of performance above 2 at -15 °C in the 2023 field study. ' +
    'Gas boilers convert at most 95 percent of the fuel energy into heat. ' +
    'The study did not cover installation cost. Heat pumps were quieter than expected.',
};

describe('ExecuteResearchLeg (a leg through the LLM port, with the user’s own key)', () => {
  let openai: LlmWireServer;
  let anthropic: LlmWireServer;
  let script: { openai: (r: WireRequest) => WireAnswer; anthropic: (r: WireRequest) => WireAnswer };
  let f: FlowFixture;
  let n = 0;

  beforeAll(async () => {
    script = { openai: () => ({ text: 'openai report' }), anthropic: () => ({ text: 'anthropic report' }) };
    openai = await startOpenAiWireServer((r) => script.openai(r));
    anthropic = await startAnthropicWireServer((r) => script.anthropic(r));
  });
  afterAll(async () => {
    await openai.close();
    await anthropic.close();
  });
  beforeEach(() => {
    f = flowFixture({ OPENAI_BASE_URL: openai.baseUrl, ANTHROPIC_BASE_URL: anthropic.baseUrl, OPENPAW_RESEARCH_MODELS: JSON.stringify({ openai: 'openai/gpt-4o-mini', anthropic: 'anthropic/claude-haiku-4-5' }) });
    openai.requests.length = 0;
    anthropic.requests.length = 0;
  });

  async function leg(over: Partial<MessageData<typeof ExecuteResearchLeg>> & Pick<MessageData<typeof ExecuteResearchLeg>, 'provider'>) {
    n += 1;
    const key = over.provider === 'local' ? null : await f.seal(USER, over.provider === 'anthropic' ? 'anthropic' : 'openai', over.provider === 'anthropic' ? ANTHROPIC_KEY : OPENAI_KEY);
    const data: MessageData<typeof ExecuteResearchLeg> = { runId: RUN, userId: USER, legIndex: 0, round: 1, prompt: PROMPT, externalReports: [FIELD_STUDY], key, capMs: 10_000, costCapUsd: 1, ...over };
    const started: string[] = [];
    const commandId = `cmd-${n}`;
    const reply = await f.legs.execute({ commandId, data }, (at) => Promise.resolve(void started.push(at)));
    return { reply, started, commandId, data };
  }

  it('given an openai leg, then the report comes from the OpenAI-compatible server, called with the user’s key, and is kept', async () => {
    script.openai = () => ({ text: '## Summary\nHeat pumps win on efficiency [External 1].', inputTokens: 400, outputTokens: 120 });
    const { reply, started } = await leg({ provider: 'openai' });
    expect(reply).toMatchObject({ message: ResearchLegCompleted, data: { provider: 'openai', model: 'openai/gpt-4o-mini', content: '## Summary\nHeat pumps win on efficiency [External 1].', local: false, usage: { inputTokens: 400, outputTokens: 120 } } });
    expect(isReplyOf(reply, ResearchLegCompleted) && reply.data.costUsd).toBeGreaterThan(0);
    expect(started).toHaveLength(1);
    expect(openai.requests).toHaveLength(1);
    expect(openai.requests[0]).toMatchObject({ apiKey: OPENAI_KEY, model: 'gpt-4o-mini' });
    expect(openai.requests[0]?.user).toContain('[External 1: Field study 2023]');
  });

  it('given an anthropic leg, then the report comes from the Anthropic Messages server', async () => {
    script.anthropic = () => ({ text: 'Anthropic says heat pumps are 2-3x as efficient.' });
    const { reply } = await leg({ provider: 'anthropic' });
    expect(reply).toMatchObject({ message: ResearchLegCompleted, data: { provider: 'anthropic', model: expect.stringMatching(/^anthropic\//), content: 'Anthropic says heat pumps are 2-3x as efficient.' } });
    expect(anthropic.requests[0]).toMatchObject({ path: '/v1/messages', apiKey: ANTHROPIC_KEY });
  });

  it('given a model that ran out of output tokens (OpenAI length, Anthropic max_tokens), then the report says it is truncated — never silently cut', async () => {
    script.openai = () => ({ text: 'Heat pumps reach a COP of', stoppedAtLimit: true });
    script.anthropic = () => ({ text: 'Gas boilers convert at most', stoppedAtLimit: true });
    expect((await leg({ provider: 'openai' })).reply).toMatchObject({ message: ResearchLegCompleted, data: { content: 'Heat pumps reach a COP of', truncated: true } });
    expect((await leg({ provider: 'anthropic' })).reply).toMatchObject({ message: ResearchLegCompleted, data: { content: 'Gas boilers convert at most', truncated: true } });
    script.openai = () => ({ text: 'A whole answer.' });
    expect((await leg({ provider: 'openai' })).reply).toMatchObject({ message: ResearchLegCompleted, data: { truncated: false } });
  });

  it('is idempotent per command id: a redelivery answers from the kept reply and never calls the provider again (no double billing)', async () => {
    script.openai = () => ({ text: 'first answer' });
    const first = await leg({ provider: 'openai' });
    const again = await f.legs.execute({ commandId: first.commandId, data: first.data }, () => Promise.reject(new Error('must not start again')));
    expect(again).toEqual(first.reply);
    expect(openai.requests).toHaveLength(1);
  });

  it('given its announcement lost (the bus not answering mid-leg), then the answer is still kept: a redelivery never calls the provider again', async () => {
    script.openai = () => ({ text: 'answered while the bus was down' });
    const data: MessageData<typeof ExecuteResearchLeg> = { runId: RUN, userId: USER, provider: 'openai', legIndex: 0, round: 1, prompt: PROMPT, externalReports: [], key: await f.seal(USER, 'openai', OPENAI_KEY), capMs: 10_000, costCapUsd: 1 };
    const first = await f.legs.execute({ commandId: 'cmd-unannounced', data }, () => Promise.reject(new Error('JetStream did not answer')));
    expect(first).toMatchObject({ message: ResearchLegCompleted, data: { content: 'answered while the bus was down' } });
    const again = await f.legs.execute({ commandId: 'cmd-unannounced', data }, () => Promise.reject(new Error('must not start again')));
    expect(again).toEqual(first);
    expect(openai.requests).toHaveLength(1);
  });

  it('given a provider that answers 500, then the wrapper retries, and the leg fails with server_error and the reason', async () => {
    script.openai = () => ({ status: 500, message: 'upstream exploded' });
    const { reply } = await leg({ provider: 'openai' });
    expect(reply).toMatchObject({ message: ResearchLegFailed, data: { reason: 'server_error', detail: expect.stringMatching(/500/) } });
    expect(openai.requests).toHaveLength(2);
  });

  it('given a 429 then a success, then the wrapper’s retry makes the leg succeed', async () => {
    let calls = 0;
    script.anthropic = () => (++calls === 1 ? { status: 429, message: 'slow down', retryAfterSeconds: 0 } : { text: 'after the 429' });
    const { reply } = await leg({ provider: 'anthropic' });
    expect(reply).toMatchObject({ message: ResearchLegCompleted, data: { content: 'after the 429' } });
    expect(anthropic.requests).toHaveLength(2);
  });

  it('given a rejected key (401), then failed with auth and no retry', async () => {
    script.openai = () => ({ status: 401, message: 'invalid api key' });
    const { reply } = await leg({ provider: 'openai' });
    expect(reply).toMatchObject({ message: ResearchLegFailed, data: { reason: 'auth' } });
    expect(openai.requests).toHaveLength(1);
  });

  it('given a provider that hangs, then the leg is stopped at its hard cap (timeout), never later', async () => {
    script.openai = () => ({ hang: true });
    const t0 = Date.now();
    const { reply } = await leg({ provider: 'openai', capMs: 300 });
    expect(reply).toMatchObject({ message: ResearchLegFailed, data: { reason: 'timeout' } });
    expect(Date.now() - t0).toBeLessThan(3_000);
  });

  it('given the research ends while the leg runs, then the call is aborted and the leg answers cancelled', async () => {
    script.openai = () => ({ hang: true });
    const running = leg({ provider: 'openai', capMs: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(f.cancellations.ended(RUN, { legRound: 1, synthesisRound: 0 })).toBe(1);
    expect((await running).reply).toMatchObject({ message: ResearchLegFailed, data: { reason: 'cancelled' } });
  });

  it('given a leg of a round the research already ended, then cancelled without calling anyone; a later round runs', async () => {
    f.cancellations.ended(RUN, { legRound: 1, synthesisRound: 0 });
    const { reply, started } = await leg({ provider: 'openai' });
    expect(reply).toMatchObject({ message: ResearchLegFailed, data: { reason: 'cancelled' } });
    expect(started).toEqual([]);
    expect(openai.requests).toHaveLength(0);
    script.openai = () => ({ text: 'round two' });
    expect((await leg({ provider: 'openai', round: 2 })).reply).toMatchObject({ message: ResearchLegCompleted });
  });

  it('given no key, or a key sealed for someone else, then no_key / auth, and the provider is never called', async () => {
    expect((await leg({ provider: 'openai', key: null })).reply).toMatchObject({ message: ResearchLegFailed, data: { reason: 'no_key' } });
    const otherUsers = await f.seal('user-8', 'openai', 'sk-other');
    expect((await leg({ provider: 'openai', key: otherUsers })).reply).toMatchObject({ message: ResearchLegFailed, data: { reason: 'auth', detail: expect.stringMatching(/cannot be opened/) } });
    expect(openai.requests).toHaveLength(0);
  });

  it('given a cost cap below the call’s worst case, then cost_cap and nothing is sent', async () => {
    const { reply } = await leg({ provider: 'openai', costCapUsd: 0 });
    expect(reply).toMatchObject({ message: ResearchLegFailed, data: { reason: 'cost_cap' } });
    expect(openai.requests).toHaveLength(0);
  });

  it('given a local leg, then the extractive researcher quotes real sentences of the external reports, cited and labelled local', async () => {
    const { reply } = await leg({ provider: 'local' });
    expect(reply.message).toBe(ResearchLegCompleted);
    if (!isReplyOf(reply, ResearchLegCompleted)) return;
    expect(reply.data).toMatchObject({ provider: 'local', model: 'local/extractive', local: true, costUsd: 0 });
    expect(reply.data.content.startsWith(LOCAL_LABEL)).toBe(true);
    expect(reply.data.content).toContain('"Cold-climate heat pumps kept a coefficient of performance above 2 at -15 °C in the 2023 field study." [E1]');
    expect(reply.data.content).toContain('- [E1] Field study 2023');
    // Every quoted finding is a sentence of the material, verbatim.
    const quoted = [...reply.data.content.matchAll(/^\d+\. "(.*)" \[E1\]$/gm)].map((m) => m[1]);
    expect(quoted.length).toBeGreaterThan(1);
    for (const q of quoted) expect(FIELD_STUDY.content).toContain(q);
  });

  it('keys the provider call by the command id: a leg redelivered after its pod was replaced mid-call resumes the kept background call (billed once)', async () => {
    const seen: (string | undefined)[] = [];
    // The pod replaced mid-call: its researcher started the provider's background response, kept its id, and never answered.
    f.providers.researcherFor = () => ({
      research: async (request) => {
        await request.backgroundCalls?.keep('resp_started_before_the_rollout');
        return new Promise<never>(() => undefined);
      },
    });
    const key = await f.seal(USER, 'openai', OPENAI_KEY);
    const data: MessageData<typeof ExecuteResearchLeg> = { runId: RUN, userId: USER, provider: 'openai', legIndex: 0, round: 1, prompt: PROMPT, externalReports: [], key, capMs: 10_000, costCapUsd: 1 };
    void f.legs.execute({ commandId: 'cmd-rollout', data }, () => Promise.resolve());
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The new pod: its own handler; the first never kept a reply; the same background calls (the database) and key vault.
    const after = flowFixture({ OPENAI_BASE_URL: openai.baseUrl, OPENPAW_RESEARCH_MODELS: JSON.stringify({ openai: 'openai/gpt-4o-mini', anthropic: 'anthropic/claude-haiku-4-5' }) });
    after.providers.researcherFor = () => ({
      research: async (request) => {
        seen.push(await request.backgroundCalls?.recall());
        return { model: 'openai/o3-deep-research', content: 'resumed report', local: false, usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0.01 };
      },
    });
    const resumed = new ExecuteResearchLegHandler(after.replies, f.vault, after.providers, after.cancellations, systemClock, f.backgroundCalls);
    expect(await resumed.execute({ commandId: 'cmd-rollout', data }, () => Promise.resolve())).toMatchObject({ message: ResearchLegCompleted, data: { content: 'resumed report' } });
    // Another leg (another command) starts its own call.
    await resumed.execute({ commandId: 'cmd-another-leg', data }, () => Promise.resolve());
    expect(seen).toEqual(['resp_started_before_the_rollout', undefined]);
  });
});
