import { z } from 'zod';
import { fakeClock, startStubServer } from '../test-support/stub-server.js';
import { AnthropicChatModel } from './anthropic-chat-model.js';
import { ProviderCooldown } from './cooldown.js';
import { CostBudgets, RunBudget } from './cost-budget.js';
import { CostCapExceededError, LlmCallFailedError, ProviderError, StructuredOutputError } from './errors.js';
import { LocalChatModel } from './local/local-chat-model.js';
import { OpenAiChatModel } from './openai-chat-model.js';
import type { ChatModel, ChatModelRequest, ChatModelResponse } from './port.js';
import { ResilientLlmClient } from './resilient-llm-client.js';

type Step = ChatModelResponse | ProviderError;

/** A provider whose replies are scripted; records what it was asked. */
class ScriptedModel implements ChatModel {
  readonly hasDefaultCredentials = true;
  readonly requests: ChatModelRequest[] = [];
  constructor(
    readonly provider: string,
    private readonly script: Step[],
  ) {}
  complete(request: ChatModelRequest): Promise<ChatModelResponse> {
    this.requests.push(request);
    const next = this.script.shift();
    if (next === undefined) return Promise.reject(new Error(`${this.provider}: unexpected call`));
    return next instanceof ProviderError ? Promise.reject(next) : Promise.resolve(next);
  }
}

const reply = (text: string, model: string, usage = { inputTokens: 100, outputTokens: 50 }): ChatModelResponse => ({ text, model, usage });
const failure = (provider: string, kind: ConstructorParameters<typeof ProviderError>[0], status?: number) =>
  new ProviderError(kind, provider, `${kind} on purpose`, status !== undefined ? { status } : {});
const hi = [{ role: 'user' as const, content: 'hi' }];

function setup(models: ChatModel[], extra: Partial<ConstructorParameters<typeof ResilientLlmClient>[0]> = {}) {
  const clock = fakeClock();
  const llm = new ResilientLlmClient({
    models,
    defaultModel: 'openai/gpt-4o-mini',
    fallbackModels: ['anthropic/claude-haiku-4-5'],
    clock,
    random: () => 0,
    ...extra,
  });
  return { llm, clock };
}

describe('ResilientLlmClient', () => {
  describe('fallback chain', () => {
    it('moves to the next model after retries are exhausted, and reports every attempt', async () => {
      const openai = new ScriptedModel('openai', [failure('openai', 'server_error', 503), failure('openai', 'server_error', 503), failure('openai', 'server_error', 503)]);
      const anthropic = new ScriptedModel('anthropic', [reply('from claude', 'claude-haiku-4-5-20251001')]);
      const { llm, clock } = setup([openai, anthropic]);
      const result = await llm.chat(hi, { maxTokens: 100 });
      expect(result.text).toBe('from claude');
      expect(result.model).toBe('anthropic/claude-haiku-4-5-20251001');
      expect(result.requestedModel).toBe('openai/gpt-4o-mini');
      expect(result.attempts.map((a) => `${a.model}:${a.outcome}`)).toEqual([
        'openai/gpt-4o-mini:server_error',
        'openai/gpt-4o-mini:server_error',
        'openai/gpt-4o-mini:server_error',
        'anthropic/claude-haiku-4-5:ok',
      ]);
      // equal jitter with random() = 0: half of 500 ms, then half of 1000 ms
      expect(clock.sleeps).toEqual([250, 500]);
    });

    it('makes at most the attempts a call asks for (maxAttempts: 1 is one request, no wait)', async () => {
      const openai = new ScriptedModel('openai', [failure('openai', 'rate_limited', 429)]);
      const { llm, clock } = setup([openai]);
      const error = (await llm.chat(hi, { maxTokens: 16, maxAttempts: 1, fallbackModels: [] }).catch((e: unknown) => e)) as LlmCallFailedError;
      expect(error).toBeInstanceOf(LlmCallFailedError);
      expect(error.attempts.map((a) => a.outcome)).toEqual(['rate_limited']);
      expect(openai.requests).toHaveLength(1);
      expect(clock.sleeps).toEqual([]);
    });

    it('does not retry a non-retryable failure but still falls back', async () => {
      const openai = new ScriptedModel('openai', [failure('openai', 'auth', 401)]);
      const anthropic = new ScriptedModel('anthropic', [reply('ok', 'claude-haiku-4-5')]);
      const { llm, clock } = setup([openai, anthropic]);
      const result = await llm.chat(hi, { maxTokens: 100 });
      expect(result.attempts.map((a) => a.outcome)).toEqual(['auth', 'ok']);
      expect(clock.sleeps).toEqual([]);
    });

    it('skips models whose provider is not configured and fails with every attempt listed', async () => {
      const openai = new ScriptedModel('openai', [failure('openai', 'bad_request', 400)]);
      const { llm } = setup([openai], { fallbackModels: ['gemini/gemini-2.5-flash'] });
      const error = (await llm.chat(hi, { maxTokens: 100 }).catch((e: unknown) => e)) as LlmCallFailedError;
      expect(error).toBeInstanceOf(LlmCallFailedError);
      expect(error.attempts.map((a) => `${a.model}:${a.outcome}`)).toEqual(['openai/gpt-4o-mini:bad_request', 'gemini/gemini-2.5-flash:not_configured']);
      expect(error.lastError).toBeInstanceOf(ProviderError);
    });

    it('does not wait for a Retry-After beyond the policy limit; it falls back instead', async () => {
      const limited = new ProviderError('rate_limited', 'openai', 'slow down', { status: 429, retryAfterMs: 3_600_000 });
      const openai = new ScriptedModel('openai', [limited]);
      const anthropic = new ScriptedModel('anthropic', [reply('ok', 'claude-haiku-4-5')]);
      const { llm, clock } = setup([openai, anthropic]);
      await llm.chat(hi, { maxTokens: 100 });
      expect(clock.sleeps).toEqual([]);
    });

    it('stops at once when the caller aborts', async () => {
      const controller = new AbortController();
      controller.abort();
      const openai = new ScriptedModel('openai', [failure('openai', 'aborted')]);
      const anthropic = new ScriptedModel('anthropic', [reply('ok', 'claude-haiku-4-5')]);
      const { llm } = setup([openai, anthropic]);
      await expect(llm.chat(hi, { maxTokens: 100, signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted' });
      expect(anthropic.requests).toHaveLength(0);
    });
  });

  describe('cost cap', () => {
    it('refuses a call whose worst-case cost does not fit, without sending it', async () => {
      const openai = new ScriptedModel('openai', [reply('never', 'gpt-4o')]);
      const { llm } = setup([openai], { defaultModel: 'openai/gpt-4o', fallbackModels: [] });
      // gpt-4o output is $10 per million tokens: 100k max tokens may cost $1 > $0.50
      const budget = new RunBudget('run-1', 0.5);
      const error = await llm.chat(hi, { maxTokens: 100_000, budget }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CostCapExceededError);
      expect(error).toMatchObject({ runId: 'run-1', capUsd: 0.5, model: 'openai/gpt-4o' });
      expect((error as CostCapExceededError).requestedUsd).toBeGreaterThan(1);
      expect(openai.requests).toHaveLength(0);
      expect(budget.spentUsd).toBe(0);
      expect(budget.reservedUsd).toBe(0);
    });

    it('charges actual cost, and refuses once the spent amount leaves too little', async () => {
      const openai = new ScriptedModel('openai', [
        reply('a', 'gpt-4o-mini', { inputTokens: 1_000_000, outputTokens: 0 }), // $0.15
        reply('b', 'gpt-4o-mini', { inputTokens: 1_000_000, outputTokens: 0 }),
      ]);
      const { llm } = setup([openai], { fallbackModels: [] });
      const budgets = new CostBudgets();
      const budget = budgets.forRun('run-2', 0.2);
      const first = await llm.chat(hi, { maxTokens: 1000, budget });
      expect(first.costUsd).toBeCloseTo(0.15, 10);
      expect(budget.spentUsd).toBeCloseTo(0.15, 10);
      expect(budgets.forRun('run-2', 99)).toBe(budget);
      // $0.05 left; 100k output tokens of gpt-4o-mini may cost $0.06
      await expect(llm.chat(hi, { maxTokens: 100_000, budget })).rejects.toBeInstanceOf(CostCapExceededError);
      expect(openai.requests).toHaveLength(1);
      // a small call still fits
      await expect(llm.chat(hi, { maxTokens: 1000, budget })).resolves.toMatchObject({ text: 'b' });
    });

    it('falls back to a cheaper model that fits the budget', async () => {
      const anthropic = new ScriptedModel('anthropic', [reply('never', 'claude-opus-4-1')]);
      const openai = new ScriptedModel('openai', [reply('cheap', 'gpt-4o-mini')]);
      const { llm } = setup([anthropic, openai], { defaultModel: 'anthropic/claude-opus-4-1', fallbackModels: ['openai/gpt-4o-mini'] });
      const result = await llm.chat(hi, { maxTokens: 10_000, budget: new RunBudget('run-3', 0.1) });
      expect(result.text).toBe('cheap');
      expect(result.attempts.map((a) => a.outcome)).toEqual(['skipped_cost_cap', 'ok']);
    });

    it('prices unknown models at the conservative fallback price', async () => {
      const openai = new ScriptedModel('openai', [reply('x', 'mystery-model', { inputTokens: 1_000_000, outputTokens: 0 })]);
      const { llm } = setup([openai], { defaultModel: 'openai/mystery-model', fallbackModels: [] });
      const result = await llm.chat(hi, { maxTokens: 10 });
      expect(result.pricing).toBe('fallback');
      expect(result.costUsd).toBe(15);
    });
  });

  describe('cooldown', () => {
    it('cools down a provider that keeps failing and skips it until the cooldown ends', async () => {
      const cooldown = new ProviderCooldown({ failureThreshold: 2, cooldownMs: 10_000 });
      const openai = new ScriptedModel('openai', [failure('openai', 'server_error', 500), failure('openai', 'timeout'), reply('back', 'gpt-4o-mini')]);
      const anthropic = new ScriptedModel('anthropic', [reply('one', 'claude-haiku-4-5'), reply('two', 'claude-haiku-4-5')]);
      const { llm, clock } = setup([openai, anthropic], { cooldown });

      const first = await llm.chat(hi, { maxTokens: 10 });
      expect(first.attempts.map((a) => a.outcome)).toEqual(['server_error', 'timeout', 'ok']);

      const second = await llm.chat(hi, { maxTokens: 10 });
      expect(second.attempts.map((a) => `${a.model}:${a.outcome}`)).toEqual(['openai/gpt-4o-mini:skipped_cooldown', 'anthropic/claude-haiku-4-5:ok']);
      expect(openai.requests).toHaveLength(2);

      await clock.sleep(10_000);
      const third = await llm.chat(hi, { maxTokens: 10 });
      expect(third.text).toBe('back');
    });

    it('cools a per-user key separately from the provider', async () => {
      const cooldown = new ProviderCooldown({ failureThreshold: 1, cooldownMs: 10_000 });
      const openai = new ScriptedModel('openai', [failure('openai', 'rate_limited', 429), reply('shared key fine', 'gpt-4o-mini')]);
      const { llm } = setup([openai], { cooldown, fallbackModels: [] });
      await expect(llm.chat(hi, { maxTokens: 10, credentials: { openai: 'sk-user-aaaaaaaaaaaa' } })).rejects.toBeInstanceOf(LlmCallFailedError);
      expect(openai.requests[0]!.apiKey).toBe('sk-user-aaaaaaaaaaaa');
      await expect(llm.chat(hi, { maxTokens: 10 })).resolves.toMatchObject({ text: 'shared key fine' });
    });
  });

  describe('structured output', () => {
    const Answer = z.object({ answer: z.number().int() });

    it('re-asks once with the validation errors and returns the corrected value', async () => {
      const openai = new ScriptedModel('openai', [reply('{"answer": "four"}', 'gpt-4o-mini'), reply('```json\n{"answer": 4}\n```', 'gpt-4o-mini')]);
      const { llm } = setup([openai]);
      const result = await llm.structured(hi, Answer, { maxTokens: 100 });
      expect(result.value).toEqual({ answer: 4 });
      expect(result.calls).toBe(2);
      expect(result.usage).toEqual({ inputTokens: 200, outputTokens: 100 });
      const reask = openai.requests[1]!.messages;
      expect(reask.at(-2)).toEqual({ role: 'assistant', content: '{"answer": "four"}' });
      expect(reask.at(-1)!.content).toContain('answer: Invalid input: expected number, received string');
      expect(openai.requests[0]!.responseSchema?.schema).toMatchObject({ type: 'object', required: ['answer'] });
    });

    it('fails with a typed error carrying the raw text after the re-ask', async () => {
      const openai = new ScriptedModel('openai', [reply('not json at all', 'gpt-4o-mini'), reply('{"answer": 4.5}', 'gpt-4o-mini')]);
      const { llm } = setup([openai]);
      const error = (await llm.structured(hi, Answer, { maxTokens: 100 }).catch((e: unknown) => e)) as StructuredOutputError;
      expect(error).toBeInstanceOf(StructuredOutputError);
      expect(error.rawText).toBe('{"answer": 4.5}');
      expect(error.firstRawText).toBe('not json at all');
      expect(error.issues).toEqual(['answer: Invalid input: expected int, received number']);
      expect(error.costUsd).toBeGreaterThan(0);
      expect(openai.requests).toHaveLength(2);
    });
  });

  it('falls back across real adapters over HTTP: OpenAI keeps failing, Anthropic answers', async () => {
    const openaiServer = await startStubServer(() => ({ status: 503, body: { error: { message: 'overloaded', type: 'server_error' } } }));
    const anthropicServer = await startStubServer(() => ({
      body: { id: 'msg', type: 'message', role: 'assistant', model: 'claude-haiku-4-5', content: [{ type: 'text', text: 'hello' }], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 1 } },
    }));
    try {
      const clock = fakeClock();
      const llm = new ResilientLlmClient({
        models: [new OpenAiChatModel({ apiKey: 'sk-a-0000000000', baseURL: `${openaiServer.url}/v1` }), new AnthropicChatModel({ apiKey: 'sk-ant-0000000000', baseURL: anthropicServer.url })],
        defaultModel: 'openai/gpt-4o-mini',
        fallbackModels: ['anthropic/claude-haiku-4-5', 'local/deterministic'],
        retry: { maxAttempts: 2 },
        clock,
        random: () => 0,
      });
      const result = await llm.chat(hi, { maxTokens: 10 });
      expect(result.model).toBe('anthropic/claude-haiku-4-5');
      expect(openaiServer.requests).toHaveLength(2);
      expect(anthropicServer.requests).toHaveLength(1);
    } finally {
      await openaiServer.close();
      await anthropicServer.close();
    }
  });

  it('skips a provider without credentials (none in env, no per-user key) without a request', async () => {
    const llm = new ResilientLlmClient({ models: [new OpenAiChatModel({}), new LocalChatModel()], defaultModel: 'openai/gpt-4o-mini', fallbackModels: ['local/deterministic'] });
    const result = await llm.chat([{ role: 'user', content: 'What is 1 + 1?' }], { maxTokens: 50 });
    expect(result.attempts.map((a) => `${a.model}:${a.outcome}`)).toEqual(['openai/gpt-4o-mini:no_credentials', 'local/deterministic:ok']);
    expect(result.text).toContain('Final answer: 2');
  });

  it('rejects malformed model ids up front', () => {
    expect(() => new ResilientLlmClient({ models: [new LocalChatModel()], defaultModel: 'gpt-4o' })).toThrow(/provider\/model/);
  });
});

describe('ResilientLlmClient concurrency limits (per provider, per caller)', () => {
  /** A provider that holds every call until released, counting how many run at once. */
  class GatedModel implements ChatModel {
    readonly hasDefaultCredentials = true;
    running = 0;
    maxRunning = 0;
    readonly #release: (() => void)[] = [];
    constructor(readonly provider: string) {}
    async complete(): Promise<ChatModelResponse> {
      this.running += 1;
      this.maxRunning = Math.max(this.maxRunning, this.running);
      await new Promise<void>((resolve) => this.#release.push(resolve));
      this.running -= 1;
      return reply('ok', 'gpt-4o-mini');
    }
    releaseAll(): void {
      for (const release of this.#release.splice(0)) release();
    }
  }

  const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

  it('runs at most the provider limit at once, and at most the per-key limit for one caller', async () => {
    const openai = new GatedModel('openai');
    const { llm } = setup([openai], { concurrency: { perProvider: { openai: 3 }, perKeyPerProvider: 1 }, fallbackModels: [] });
    const calls = [
      llm.chat(hi, { maxTokens: 10, concurrencyKey: 'alice' }),
      llm.chat(hi, { maxTokens: 10, concurrencyKey: 'alice' }),
      llm.chat(hi, { maxTokens: 10, concurrencyKey: 'bob' }),
      llm.chat(hi, { maxTokens: 10, concurrencyKey: 'carol' }),
      llm.chat(hi, { maxTokens: 10, concurrencyKey: 'dave' }),
    ];
    await settle();
    // alice's second call waits for her first; the provider takes 3 at once (alice, bob, carol).
    expect(openai.running).toBe(3);
    for (let i = 0; i < 5 && openai.running > 0; i += 1) {
      openai.releaseAll();
      await settle();
      await settle();
    }
    openai.releaseAll();
    const results = await Promise.all(calls);
    expect(results.map((r) => r.text)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(openai.maxRunning).toBe(3);
  });
});
