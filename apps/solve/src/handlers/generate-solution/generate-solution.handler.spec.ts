import { boundedMathsEngine, checkFinalAnswer, DEFAULT_MATHS_BUDGET, type MathsEngine, solveProblem } from '@openpaw/maths';
import { isReplyOf, type Reply } from '@openpaw/messaging';
import { deterministicUuid, type GenerateSolution, type MessageData, SolutionFailed, SolutionGenerated } from '@openpaw/contracts';
import { serviceMessagingSettingsFromEnv } from '@openpaw/platform';
import {
  type BlobInfo,
  BlobNotFoundError,
  type BlobStore,
  createLlmFromEnv,
  type LlmClient,
  LlmCallFailedError,
  ProviderError,
  StructuredOutputError,
} from '@openpaw/providers';
import type { SolveSettings } from '../../config.js';
import type { AttemptClaim, AttemptKey, ClaimLease, SolveAttemptStore, StoredAnswer } from '../../ports.js';
import { ClaimLostError } from '../../claim/claim-heartbeat.js';
import { PROMPT_VERSION } from '../../solution/prompt.js';
import { ManualHeartbeatClock } from '../../testing/manual-heartbeat-clock.js';
import { GenerateSolutionHandler } from './generate-solution.handler.js';
import { LlmMathsTranslator } from '../../solution/maths-translation.js';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '../../testing/fake-openai-server.js';

const settings: SolveSettings = { providerEnv: {}, messaging: serviceMessagingSettingsFromEnv({}), databaseUrl: 'unused', poolSize: 1, maxTokens: 1500, llmTimeoutMs: undefined, deadlineMs: 5_000, claimLeaseMs: 60_000, claimRenewEveryMs: 20_000, mathsEngine: 'first', mathsBudget: DEFAULT_MATHS_BUDGET, mathsWorkers: 1, mathsTranslationModel: undefined };
const RUN = '5b0b7e3c-8f0e-4a43-9a55-0c3c9d1f8a10';

function command(problem: string, overrides: Partial<MessageData<typeof GenerateSolution>> = {}, commandId = 'cmd-1') {
  return {
    commandId,
    data: {
      runId: RUN,
      attempt: 1,
      signature: { normalizedText: problem, textSha256: 'a'.repeat(64), topicTags: { subject: 'algebra', keywords: ['equation'] } },
      model: 'local/deterministic',
      fallbackModels: [],
      costCapUsd: 1,
      spentUsd: 0,
      ...overrides,
    },
  };
}

/** The store's semantics in memory (the SQL version is covered by the integration test). */
class InMemoryAttempts implements SolveAttemptStore {
  readonly rows = new Map<string, { status: 'in_progress' | 'answered' | 'done'; leaseExpiresAt: number; lease?: ClaimLease | undefined; answer?: StoredAnswer; reply?: Reply }>();
  /** The database's clock. */
  now = 0;
  /** When set, `release` fails with it (the database away). */
  releaseError: Error | undefined;
  /** When set, `renew` fails with it (the database away). */
  renewError: Error | undefined;
  releases = 0;
  renewals = 0;
  #leases = 0;

  claim(key: AttemptKey, _commandId: string, leaseMs: number): Promise<AttemptClaim> {
    const id = `${key.runId}/${key.attempt}`;
    const row = this.rows.get(id);
    const lease = `lease-${++this.#leases}`;
    if (row === undefined) {
      this.rows.set(id, { status: 'in_progress', leaseExpiresAt: this.now + leaseMs, lease });
      return Promise.resolve({ kind: 'claimed', answer: undefined, lease });
    }
    if (row.status === 'done') return Promise.resolve({ kind: 'done', reply: row.reply! });
    if (row.leaseExpiresAt > this.now) return Promise.resolve({ kind: 'busy', retryInMs: row.leaseExpiresAt - this.now });
    Object.assign(row, { leaseExpiresAt: this.now + leaseMs, lease });
    return Promise.resolve({ kind: 'claimed', answer: row.answer, lease });
  }

  /** Another delivery takes the attempt over (as after this one's lease expired). */
  takeOver(key: AttemptKey): void {
    Object.assign(this.rows.get(`${key.runId}/${key.attempt}`)!, { lease: `lease-${++this.#leases}` });
  }

  renew(key: AttemptKey, lease: ClaimLease, leaseMs: number): Promise<boolean> {
    if (this.renewError !== undefined) return Promise.reject(this.renewError);
    const row = this.#held(key, lease);
    if (row !== undefined) {
      row.leaseExpiresAt = this.now + leaseMs;
      this.renewals++;
    }
    return Promise.resolve(row !== undefined);
  }

  release(key: AttemptKey, lease: ClaimLease): Promise<void> {
    if (this.releaseError !== undefined) return Promise.reject(this.releaseError);
    const row = this.#held(key, lease);
    if (row !== undefined) {
      Object.assign(row, { leaseExpiresAt: Number.NEGATIVE_INFINITY, lease: undefined });
      this.releases++;
    }
    return Promise.resolve();
  }

  saveAnswer(key: AttemptKey, lease: ClaimLease, answer: StoredAnswer): Promise<boolean> {
    const row = this.#held(key, lease);
    if (row !== undefined) Object.assign(row, { status: 'answered', answer });
    return Promise.resolve(row !== undefined);
  }

  complete(key: AttemptKey, lease: ClaimLease, reply: Reply): Promise<boolean> {
    const row = this.#held(key, lease);
    if (row !== undefined) Object.assign(row, { status: 'done', reply });
    return Promise.resolve(row !== undefined);
  }

  countInvalidOutputs(runId: string, beforeAttempt: number): Promise<number> {
    let n = 0;
    for (const [id, row] of this.rows) {
      const [r, a] = id.split('/');
      if (r === runId && Number(a) < beforeAttempt && row.reply !== undefined && isReplyOf(row.reply, SolutionFailed) && row.reply.data.errorCode === 'invalid_output') n++;
    }
    return Promise.resolve(n);
  }

  #held(key: AttemptKey, lease: ClaimLease) {
    const row = this.rows.get(`${key.runId}/${key.attempt}`);
    return row !== undefined && row.status !== 'done' && row.lease === lease ? row : undefined;
  }
}

class MemoryBlobs implements BlobStore {
  readonly backend = 'memory';
  readonly objects = new Map<string, { body: Buffer; info: BlobInfo }>();
  puts: string[] = [];

  put(key: string, body: Uint8Array | string, options: { contentType?: string } = {}): Promise<BlobInfo> {
    const buffer = Buffer.from(body);
    const info: BlobInfo = { key, size: buffer.length, contentType: options.contentType ?? 'application/octet-stream', metadata: {}, updatedAt: new Date().toISOString() };
    this.objects.set(key, { body: buffer, info });
    this.puts.push(key);
    return Promise.resolve(info);
  }
  get(key: string): Promise<{ info: BlobInfo; body: Buffer }> {
    const object = this.objects.get(key);
    return object === undefined ? Promise.reject(new BlobNotFoundError(key)) : Promise.resolve(object);
  }
  head(key: string): Promise<BlobInfo | undefined> {
    return Promise.resolve(this.objects.get(key)?.info);
  }
  delete(key: string): Promise<boolean> {
    return Promise.resolve(this.objects.delete(key));
  }
  list(): Promise<{ items: BlobInfo[] }> {
    return Promise.resolve({ items: [...this.objects.values()].map((o) => o.info) });
  }
  shareUrl(): Promise<{ url: string; expiresAt: string }> {
    return Promise.reject(new Error('not supported'));
  }
}

/** The real client with the local model, counting structured calls and keeping their options. */
function countingLocalLlm(): LlmClient & { calls: number; options: Array<Parameters<LlmClient['structured']>[2]> } {
  const inner = createLlmFromEnv({ OPENPAW_LLM_MODEL: 'local/deterministic' });
  const llm = {
    calls: 0,
    options: [] as Array<Parameters<LlmClient['structured']>[2]>,
    chat: inner.chat.bind(inner),
    describe: inner.describe.bind(inner),
    structured: ((...args: Parameters<LlmClient['structured']>) => {
      llm.calls++;
      llm.options.push(args[2]);
      return inner.structured(...args);
    }) as LlmClient['structured'],
  };
  return llm;
}

function failingLlm(error: Error): LlmClient {
  return {
    chat: () => Promise.reject(error),
    structured: () => Promise.reject(error),
    describe: () => ({ defaultModel: 'x/y', fallbackModels: [], providers: [] }),
  };
}

/** A model that answers every solve with the given steps and final answer (for the answer check). */
function scriptedLlm(finalAnswer: string): LlmClient & { calls: number } {
  const llm = {
    calls: 0,
    chat: () => Promise.reject(new Error('unused')),
    describe: () => ({ defaultModel: 'openai/gpt-4o-mini', fallbackModels: [], providers: ['openai'] }),
    structured: (() => {
      llm.calls++;
      const value = { can_solve: true, reason: null, steps: [{ title: 'Work it out', detail: 'the working' }], final_answer: finalAnswer };
      return Promise.resolve({
        value,
        rawText: JSON.stringify(value),
        calls: 1,
        model: 'openai/gpt-4o-mini',
        requestedModel: 'openai/gpt-4o-mini',
        usage: { inputTokens: 100, outputTokens: 50 },
        latencyMs: 5,
        costUsd: 0.001,
        pricing: 'table',
      });
    }) as unknown as LlmClient['structured'],
  };
  return llm;
}

function setup(llm: LlmClient = countingLocalLlm(), overrides: Partial<SolveSettings> = {}) {
  const attempts = new InMemoryAttempts();
  const blobs = new MemoryBlobs();
  return { attempts, blobs, handler: new GenerateSolutionHandler(llm, blobs, attempts, { ...settings, ...overrides }) };
}

// The engine's worker threads (one may still be starting, replacing one ended past its deadline).
afterAll(() => boundedMathsEngine().close());

const LEASE = { claimLeaseMs: 15_000, claimRenewEveryMs: 5_000 };
/** The heartbeat gives up a tenth of the lease (at most 1 s) before the lease could expire. */
const GIVE_UP_AT_MS = LEASE.claimLeaseMs - 1_000;

/** A handler whose claim heartbeat runs on a clock the test moves (15 s lease, renewed every 5 s). */
function setupWithClock(llm: LlmClient) {
  const attempts = new InMemoryAttempts();
  const blobs = new MemoryBlobs();
  const clock = new ManualHeartbeatClock();
  return { attempts, blobs, clock, handler: new GenerateSolutionHandler(llm, blobs, attempts, { ...settings, ...LEASE }, clock, IN_THREAD_MATHS) };
}

/** The engine on the test's own thread: the manual clock steps the handler through promises, which a worker thread's reply is not. */
const IN_THREAD_MATHS: MathsEngine = {
  solve: (text, budget) => Promise.resolve(solveProblem(text, budget)),
  check: (problem, finalAnswer, budget) => Promise.resolve(checkFinalAnswer(problem, finalAnswer, budget)),
};

/**
 * A model that works until the test lets it answer (`answer()`), and stops with the provider's
 * abort error when the call's signal is aborted.
 */
function workingLlm(finalAnswer: string): LlmClient & { answer: () => void; signal: () => AbortSignal | undefined } {
  const answering = scriptedLlm(finalAnswer);
  let answer: () => void = () => undefined;
  let signal: AbortSignal | undefined;
  return {
    ...answering,
    answer: () => answer(),
    signal: () => signal,
    structured: ((...args: Parameters<LlmClient['structured']>) =>
      new Promise<unknown>((resolve, reject) => {
        signal = args[2].signal;
        signal?.addEventListener('abort', () => reject(new ProviderError('aborted', 'openai', 'aborted')));
        answer = () => resolve(answering.structured(...args));
      })) as unknown as LlmClient['structured'],
  };
}

/** The handler's outcome once it settles, without awaiting it (the test moves the clock meanwhile). */
function settledOf(promise: Promise<unknown>): { outcome?: { value: unknown } | { error: unknown } } {
  const settled: { outcome?: { value: unknown } | { error: unknown } } = {};
  promise.then(
    (value) => (settled.outcome = { value }),
    (error: unknown) => (settled.outcome = { error }),
  );
  return settled;
}

/** A cubic: outside the maths engine's step generators (a model must answer), but checkable by substitution. */
const CUBIC = 'solve x^3 - 6x^2 + 11x - 6 = 0';

describe('GenerateSolutionHandler', () => {
  it('solves with the maths engine first: no model call, cost 0, the engine\'s steps as MathML, provenance "solved"', async () => {
    const llm = countingLocalLlm();
    const { handler, blobs } = setup(llm);
    const result = await handler.execute(command('a car travels 150 km in 2 hours 30 minutes. what is its average speed?'));
    if (result.kind !== 'reply' || !isReplyOf(result.reply, SolutionGenerated)) throw new Error('expected SolutionGenerated');
    expect(llm.calls).toBe(0);
    expect(result.reply.data).toMatchObject({
      finalAnswer: '60 km/h',
      provenance: { model: 'openpaw/maths-engine', promptVersion: 'maths-v11', costUsd: 0, inputTokens: 0, mathsEngine: 'solved', mathsEngineCategory: 'speed_distance_time' },
    });
    const html = blobs.objects.get(`solutions/${RUN}/1.html`)!.body.toString();
    expect(html).toContain('<math');
    expect(html).toContain('Express the time in one unit');
    expect(html).toContain('Generated by openpaw/maths-engine with prompt maths-v11. Solved offline by the maths engine; answer checked');
  });

  // One library call that never charges the step budget (an integral nested 40 deep) held the
  // service's thread for minutes; the engine's thread is now ended at the budget's deadline.
  it('ends an engine call that outlives its budget: the model answers, its answer is not checked, all within seconds', async () => {
    const llm = scriptedLlm('\\(x + C\\)');
    const { handler } = setup(llm, { mathsBudget: { steps: DEFAULT_MATHS_BUDGET.steps, millis: 300 } });
    const started = performance.now();
    const result = await handler.execute(command(`Integrate ${'sin('.repeat(40)}x${')'.repeat(40)}`));
    expect(performance.now() - started).toBeLessThan(30_000); // two calls of 300 ms each, and the engine's threads starting
    expect(llm.calls).toBe(1);
    expect(result).toMatchObject({ reply: { message: SolutionGenerated, data: { provenance: { model: 'openai/gpt-4o-mini', mathsEngine: 'not_checked', mathsEngineDetail: expect.stringMatching(/^too much work for the maths engine: the solve ran past the 300 ms/) as unknown } } } });
  }, 60_000);

  it('gives the maths engine the configured budget: past it the engine does not solve, and the model answers (checked by substitution)', async () => {
    const llm = countingLocalLlm();
    const { handler } = setup(llm, { mathsBudget: { steps: 1_000, millis: 0 } });
    const result = await handler.execute(command('2x + 3 = 7'));
    if (result.kind !== 'reply' || !isReplyOf(result.reply, SolutionGenerated)) throw new Error('expected SolutionGenerated');
    expect(llm.calls).toBe(1);
    expect(result.reply.data.provenance).toMatchObject({ model: 'local/deterministic', mathsEngine: 'checked_agrees', mathsEngineDetail: 'each root satisfies the equation on substitution' });
  });

  it('asks the model under the run user\'s concurrency key (per provider per user limits)', async () => {
    const llm = countingLocalLlm();
    const { handler } = setup(llm, { mathsEngine: 'check' });
    await handler.execute({ ...command('2x + 3 = 7'), userId: 'alice' });
    expect(llm.options).toEqual([expect.objectContaining({ concurrencyKey: 'alice' })]);
  });

  it('solves, stores the HTML and its steps, and answers SolutionGenerated with provenance', async () => {
    const { handler, blobs } = setup(countingLocalLlm(), { mathsEngine: 'check' });
    const result = await handler.execute(command('2x + 3 = 7'));
    expect(result.kind).toBe('reply');
    if (result.kind !== 'reply' || !isReplyOf(result.reply, SolutionGenerated)) throw new Error('expected SolutionGenerated');
    const { reply } = result;
    expect(reply.id).toBe(deterministicUuid('cmd-1', SolutionGenerated.subject));
    expect(reply.data).toMatchObject({
      runId: RUN,
      commandId: 'cmd-1',
      attempt: 1,
      storageKey: `solutions/${RUN}/1.html`,
      finalAnswer: 'x = 2',
      provenance: { model: 'local/deterministic', promptVersion: PROMPT_VERSION, costUsd: 0, mathsEngine: 'checked_agrees' },
    });
    expect(reply.data.provenance.inputTokens).toBeGreaterThan(0);
    const html = blobs.objects.get(`solutions/${RUN}/1.html`)!;
    expect(html.info.contentType).toBe('text/html; charset=utf-8');
    expect(html.body.toString()).toMatch(/data-final-answer>[\s\S]*<mi>x<\/mi><mo>=<\/mo><mn>2<\/mn>/);
    const steps = JSON.parse(blobs.objects.get(`solutions/${RUN}/1.steps.json`)!.body.toString()) as { steps: unknown[]; finalAnswer: string };
    expect(steps).toMatchObject({ format: 'openpaw.solution-steps.v1', finalAnswer: 'x = 2', problem: '2x + 3 = 7' });
    expect(steps.steps).toHaveLength(reply.data.stepCount);
    const { createHash } = await import('node:crypto');
    expect(reply.data.contentSha256).toBe(createHash('sha256').update(html.body).digest('hex'));
  });

  it('fails the attempt when the maths engine disagrees with the model\'s final answer (invalid_output, retryable once)', async () => {
    const { handler, blobs } = setup(scriptedLlm('\\(x = 3\\)'), { mathsEngine: 'check' });
    const result = await handler.execute(command('2x + 3 = 7'));
    expect(result).toMatchObject({ reply: { message: SolutionFailed, data: { errorCode: 'invalid_output', retryable: true, costUsd: 0.001 } } });
    if (result.kind === 'reply' && isReplyOf(result.reply, SolutionFailed)) expect(result.reply.data.detail).toMatch(/checked by the maths engine.*x = 2/);
    expect(blobs.puts).toEqual([]);
  });

  it('records "checked by the maths engine" when it agrees with a model, in the provenance and on the page', async () => {
    const { handler, blobs } = setup(scriptedLlm('\\(x = \\frac{4}{2}\\)'), { mathsEngine: 'check' });
    expect(await handler.execute(command('2x + 3 = 7'))).toMatchObject({
      reply: { message: SolutionGenerated, data: { provenance: { model: 'openai/gpt-4o-mini', mathsEngine: 'checked_agrees', mathsEngineCategory: 'linear_equation' } } },
    });
    expect(blobs.objects.get(`solutions/${RUN}/1.html`)!.body.toString()).toContain('Final answer checked by the maths engine.');
  });

  it('substitutes a model\'s roots of an equation outside the engine\'s scope, and rejects a root that fails', async () => {
    const good = setup(scriptedLlm('x = 1, x = 2 or x = 3'));
    expect(await good.handler.execute(command(CUBIC))).toMatchObject({ reply: { message: SolutionGenerated, data: { provenance: { mathsEngine: 'checked_agrees' } } } });
    const bad = setup(scriptedLlm('x = 1, x = 2 or x = 4'));
    expect(await bad.handler.execute(command(CUBIC))).toMatchObject({ reply: { message: SolutionFailed, data: { errorCode: 'invalid_output' } } });
  });

  it('records "not checked" when the engine can neither solve nor substitute', async () => {
    const { handler } = setup(scriptedLlm('there are infinitely many'));
    expect(await handler.execute(command('prove that there are infinitely many primes'))).toMatchObject({
      reply: { message: SolutionGenerated, data: { provenance: { mathsEngine: 'not_checked' } } },
    });
  });

  it('labels a model\'s answer to words the engine does not read as maths "translation unverified", never checked, in the provenance and on the page', async () => {
    const { handler, blobs } = setup(scriptedLlm('le nombre est 6'));
    expect(await handler.execute(command("Cinq de plus que le double d'un nombre font dix-sept; trouve le nombre."))).toMatchObject({
      reply: { message: SolutionGenerated, data: { provenance: { mathsEngine: 'not_checked', mathsEngineDetail: expect.stringMatching(/^translation unverified: /) as unknown } } },
    });
    const page = blobs.objects.get(`solutions/${RUN}/1.html`)!.body.toString();
    expect(page).toContain('Translation unverified');
    expect(page).not.toContain('checked by the maths engine.');
  });

  it('answers a redelivery with the stored reply: no second LLM call, no second write', async () => {
    const llm = countingLocalLlm();
    const { handler, blobs } = setup(llm, { mathsEngine: 'check' });
    const first = await handler.execute(command('2x + 3 = 7'));
    const again = await handler.execute(command('2x + 3 = 7'));
    expect(again).toEqual(first);
    expect(llm.calls).toBe(1);
    expect(blobs.puts).toHaveLength(2);
  });

  it('answers another command for an attempt already done with the same outcome, addressed to it', async () => {
    const llm = countingLocalLlm();
    const { handler, blobs } = setup(llm, { mathsEngine: 'check' });
    const first = await handler.execute(command('2x + 3 = 7'));
    const other = await handler.execute(command('2x + 3 = 7', {}, 'cmd-other'));
    if (first.kind !== 'reply' || other.kind !== 'reply') throw new Error('expected replies');
    expect(other.reply.id).toBe(deterministicUuid('cmd-other', SolutionGenerated.subject));
    expect(other.reply.data).toEqual({ ...first.reply.data, commandId: 'cmd-other' });
    expect(llm.calls).toBe(1);
    expect(blobs.puts).toHaveLength(2);
  });

  it('resumes from a kept answer after a crash, without asking the model again', async () => {
    const llm = countingLocalLlm();
    const { handler, attempts, blobs } = setup(llm, { mathsEngine: 'check' });
    await handler.execute(command('2x + 3 = 7'));
    const row = attempts.rows.get(`${RUN}/1`)!;
    // As if the process died after keeping the answer, before writing the blobs.
    Object.assign(row, { status: 'answered', reply: undefined, leaseExpiresAt: -1_000_000 });
    blobs.objects.clear();
    const result = await handler.execute(command('2x + 3 = 7'));
    expect(result).toMatchObject({ kind: 'reply', reply: { message: SolutionGenerated, data: { finalAnswer: 'x = 2' } } });
    expect(llm.calls).toBe(1);
    expect(blobs.objects.has(`solutions/${RUN}/1.html`)).toBe(true);
  });

  it('tells a concurrent delivery of the same attempt to come back later', async () => {
    const { handler, attempts } = setup();
    attempts.rows.set(`${RUN}/1`, { status: 'in_progress', leaseExpiresAt: 60_000, lease: 'lease-other' });
    attempts.now = 10_000;
    expect(await handler.execute(command('2x + 3 = 7'))).toEqual({ kind: 'busy', retryInMs: 50_000 });
  });

  it('gives its claim back when it fails after claiming: the redelivery takes over at once, from the kept answer', async () => {
    const llm = countingLocalLlm();
    const { handler, attempts, blobs } = setup(llm, { mathsEngine: 'check' });
    const put = blobs.put.bind(blobs);
    blobs.put = () => Promise.reject(new Error('blob storage is down'));
    await expect(handler.execute(command('2x + 3 = 7'))).rejects.toThrow('blob storage is down');
    expect(attempts.releases).toBe(1);

    // The redelivery, a moment later (well inside the lease): claimed, not told to come back later.
    blobs.put = put;
    attempts.now = 1_000;
    const result = await handler.execute(command('2x + 3 = 7'));
    expect(result).toMatchObject({ kind: 'reply', reply: { message: SolutionGenerated, data: { finalAnswer: 'x = 2' } } });
    expect(llm.calls).toBe(1);
  });

  it('when even giving the claim back fails (the database away), gives it back before its next claim of the attempt', async () => {
    const { handler, attempts } = setup(failingLlm(new Error('database is down')));
    attempts.releaseError = new Error('database is down');
    await expect(handler.execute(command(CUBIC))).rejects.toThrow('database is down');
    expect(attempts.releases).toBe(0);

    attempts.releaseError = undefined;
    attempts.now = 1_000;
    await expect(handler.execute(command(CUBIC))).rejects.toThrow('database is down');
    // The leftover claim was given back first, so this delivery claimed (and, failing, gave back) its own.
    expect(attempts.releases).toBe(2);
  });

  it('answers cannot_solve, not retryable, when the model says it cannot solve', async () => {
    const { handler, blobs } = setup();
    const result = await handler.execute(command('prove that there are infinitely many primes'));
    expect(result).toMatchObject({
      kind: 'reply',
      reply: { message: SolutionFailed, id: deterministicUuid('cmd-1', SolutionFailed.subject), data: { errorCode: 'cannot_solve', retryable: false, costUsd: 0 } },
    });
    expect(blobs.puts).toEqual([]);
  });

  it('answers cost_cap_exceeded when the run has spent its cap, without calling a model', async () => {
    const { handler, blobs } = setup();
    const result = await handler.execute(command(CUBIC, { costCapUsd: 0.1, spentUsd: 0.2 }));
    expect(result).toMatchObject({ kind: 'reply', reply: { message: SolutionFailed, data: { errorCode: 'cost_cap_exceeded', retryable: false, costUsd: 0 } } });
    expect(blobs.puts).toEqual([]);
  });

  it('answers invalid_output retryable once per run, with what the bad replies cost', async () => {
    const error = new StructuredOutputError('nope', ['steps: required'], 'openai/gpt-4o-mini', { inputTokens: 100, outputTokens: 20 }, 0.002, 'nope');
    const { handler } = setup(failingLlm(error));
    const first = await handler.execute(command(CUBIC));
    expect(first).toMatchObject({ reply: { data: { errorCode: 'invalid_output', retryable: true, costUsd: 0.002 } } });
    const second = await handler.execute(command(CUBIC, { attempt: 2 }, 'cmd-2'));
    expect(second).toMatchObject({ reply: { data: { errorCode: 'invalid_output', retryable: false, attempt: 2 } } });
  });

  it('answers llm_unavailable (retryable) when every model of the chain fails', async () => {
    const error = new LlmCallFailedError([{ model: 'openai/gpt-4o-mini', outcome: 'server_error', waitedMs: 0 }], new ProviderError('server_error', 'openai', '503'));
    const { handler } = setup(failingLlm(error));
    expect(await handler.execute(command(CUBIC))).toMatchObject({ reply: { data: { errorCode: 'llm_unavailable', retryable: true } } });
  });

  it('answers timeout when the attempt’s deadline passes', async () => {
    const slow: LlmClient = {
      ...failingLlm(new Error('unused')),
      structured: (_messages, _schema, options) =>
        new Promise((_resolve, reject) => {
          options.signal?.addEventListener('abort', () => reject(new ProviderError('aborted', 'openai', 'aborted')));
        }),
    };
    const attempts = new InMemoryAttempts();
    const handler = new GenerateSolutionHandler(slow, new MemoryBlobs(), attempts, { ...settings, deadlineMs: 50 });
    expect(await handler.execute(command(CUBIC))).toMatchObject({ reply: { data: { errorCode: 'timeout', retryable: true } } });
  });

  it('lets an error that is not the LLM’s propagate, so the command is redelivered', async () => {
    const { handler } = setup(failingLlm(new Error('database is down')));
    await expect(handler.execute(command(CUBIC))).rejects.toThrow('database is down');
  });
});

describe('GenerateSolutionHandler: the claim lease while the model works', () => {
  const ANSWER = 'x = 1, x = 2 or x = 3';

  it('renews its claim every 5 s while the model works, and stops renewing once it has answered', async () => {
    const llm = workingLlm(ANSWER);
    const { handler, attempts, clock } = setupWithClock(llm);
    const settled = settledOf(handler.execute(command(CUBIC)));
    await clock.advance(30_000);
    expect(attempts.renewals).toBe(6);
    expect(settled.outcome).toBeUndefined();

    llm.answer();
    await clock.advance(0);
    expect(settled.outcome).toMatchObject({ value: { kind: 'reply', reply: { message: SolutionGenerated } } });
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(60_000);
    expect(attempts.renewals).toBe(6);
  });

  it('once another delivery took its claim over, aborts the model call, keeps and publishes nothing, and is redelivered', async () => {
    const llm = workingLlm(ANSWER);
    const { handler, attempts, blobs, clock } = setupWithClock(llm);
    const settled = settledOf(handler.execute(command(CUBIC)));
    await clock.advance(0);
    attempts.takeOver({ runId: RUN, attempt: 1 });
    await clock.advance(5_000);

    expect(llm.signal()?.aborted).toBe(true);
    expect(settled.outcome).toEqual({ error: expect.any(ClaimLostError) as unknown });
    expect(attempts.rows.get(`${RUN}/1`)).toMatchObject({ status: 'in_progress', lease: 'lease-2' });
    expect(attempts.rows.get(`${RUN}/1`)?.answer).toBeUndefined();
    expect(blobs.puts).toEqual([]);
  });

  it('cut off from PostgreSQL (renewals fail), keeps working until its lease could expire, then aborts the model call and gives up', async () => {
    const llm = workingLlm(ANSWER);
    const { handler, attempts, blobs, clock } = setupWithClock(llm);
    attempts.renewError = new Error('connection terminated unexpectedly');
    attempts.releaseError = attempts.renewError;
    const settled = settledOf(handler.execute(command(CUBIC)));
    await clock.advance(GIVE_UP_AT_MS - 1);
    expect(llm.signal()?.aborted).toBe(false);
    expect(settled.outcome).toBeUndefined();

    await clock.advance(1);
    expect(llm.signal()?.aborted).toBe(true);
    expect(settled.outcome).toEqual({ error: expect.any(ClaimLostError) as unknown });
    expect(attempts.rows.get(`${RUN}/1`)?.status).toBe('in_progress');
    expect(blobs.puts).toEqual([]);
  });

  it('when its claim is taken over while it writes the solution, does not keep (or publish) its reply', async () => {
    const llm = workingLlm(ANSWER);
    const { handler, attempts, blobs, clock } = setupWithClock(llm);
    const put = blobs.put.bind(blobs);
    blobs.put = (...args: Parameters<MemoryBlobs['put']>) => {
      attempts.takeOver({ runId: RUN, attempt: 1 });
      return put(...args);
    };
    const settled = settledOf(handler.execute(command(CUBIC)));
    await clock.advance(0);
    llm.answer();
    await clock.advance(0);

    expect(settled.outcome).toEqual({ error: expect.any(ClaimLostError) as unknown });
    expect(attempts.rows.get(`${RUN}/1`)).toMatchObject({ status: 'answered' });
    expect(attempts.rows.get(`${RUN}/1`)?.reply).toBeUndefined();
  });
});

describe('a model translation of the words, where one is configured (issue 24)', () => {
  const WORDED = 'Five more than twice a number is seventeen; find the number';
  const FRENCH = "Cinq de plus que le double d'un nombre font dix-sept; trouve le nombre.";
  /** The translation the scripted model gives, per problem. */
  const scripted = new Map<string, string>();
  let server: FakeOpenAiServer;

  beforeAll(async () => {
    server = await startFakeOpenAiServer((request) => {
      const problem = request.body.messages?.find((m) => m.role === 'user' && scripted.has(m.content))?.content;
      return { content: JSON.stringify({ maths: (problem === undefined ? undefined : scripted.get(problem)) ?? 'nothing' }), promptTokens: 120, completionTokens: 12 };
    });
  });
  afterAll(() => server.close());

  function withTranslator() {
    const models = createLlmFromEnv({ OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'sk-test-key', OPENPAW_LLM_MAX_ATTEMPTS: '1' });
    const attempts = new InMemoryAttempts();
    const blobs = new MemoryBlobs();
    const solver = countingLocalLlm();
    const translator = new LlmMathsTranslator(models, 'openai/gpt-4o-mini');
    return { blobs, solver, handler: new GenerateSolutionHandler(solver, blobs, attempts, settings, undefined, IN_THREAD_MATHS, translator) };
  }

  it('given a translation that agrees with the engine\'s reader, then the answer is checked, and the agreement and its cost recorded', async () => {
    scripted.set(WORDED, 'Solve 2x + 5 = 17');
    const { handler, solver } = withTranslator();
    const result = await handler.execute(command(WORDED));
    expect(result).toMatchObject({
      reply: { message: SolutionGenerated, data: { finalAnswer: 'the number is 6', provenance: { mathsEngine: 'solved', mathsEngineDetail: expect.stringContaining('"Solve 2x + 5 = 17" (openai/gpt-4o-mini') as unknown } } },
    });
    if (result.kind === 'reply' && isReplyOf(result.reply, SolutionGenerated)) expect(result.reply.data.provenance.costUsd).toBeGreaterThan(0);
    expect(solver.calls).toBe(0);
  });

  it('given a translation that reads other maths (roles swapped), then the answer is labelled "translation unverified", never checked, on the page too', async () => {
    scripted.set(WORDED, 'Solve 2x = 17 + 5');
    const { handler, blobs } = withTranslator();
    expect(await handler.execute(command(WORDED))).toMatchObject({
      reply: { message: SolutionGenerated, data: { provenance: { mathsEngine: 'not_checked', mathsEngineDetail: expect.stringMatching(/^translation unverified: the model read the words as "Solve 2x = 17 \+ 5"/) as unknown } } },
    });
    const page = blobs.objects.get(`solutions/${RUN}/1.html`)!.body.toString();
    expect(page).toContain('Translation unverified');
    expect(page).not.toContain('answer checked');
  });

  it('given words the engine\'s reader does not read, then the engine solves the translation, labelled "translation unverified"', async () => {
    scripted.set(FRENCH, 'Solve 2x + 5 = 17');
    const { handler, solver } = withTranslator();
    expect(await handler.execute(command(FRENCH))).toMatchObject({
      reply: { message: SolutionGenerated, data: { finalAnswer: 'x = 6', provenance: { mathsEngine: 'not_checked', mathsEngineDetail: expect.stringContaining('nothing to compare it with') as unknown } } },
    });
    expect(solver.calls).toBe(0);
  });

  it('given a translation the engine cannot solve, for words it cannot read, then the models answer as without one (and the check labels theirs)', async () => {
    scripted.set(FRENCH, 'le nombre');
    const { handler, solver } = withTranslator();
    const result = await handler.execute(command(FRENCH));
    expect(solver.calls).toBe(1);
    // What the translation cost is in what the attempt cost (the local model's own answer costs nothing).
    const data = result.kind === 'reply' ? (result.reply.data as { readonly costUsd?: number; readonly provenance?: { readonly costUsd: number } }) : undefined;
    expect(data?.provenance?.costUsd ?? data?.costUsd).toBeGreaterThan(0);
  });
});
