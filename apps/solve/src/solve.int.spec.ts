import { DEFAULT_MATHS_BUDGET } from '@openpaw/maths';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import {
  deterministicUuid,
  type Envelope,
  GenerateSolution,
  type MessageData,
  SolutionFailed,
  SolutionGenerated,
  STREAMS,
} from '@openpaw/contracts';
import { connectNats, JetStreamPublisher, provisionStreams } from '@openpaw/messaging';
import { type RunningService, serviceMessagingSettingsFromEnv, startService } from '@openpaw/platform';
import { type BlobStore, createBlobStoreFromEnv, createLlmFromEnv, type LlmClient } from '@openpaw/providers';
import { counting, freshDatabase, privateNatsServer, waitFor } from '@openpaw/testing';
import pg from 'pg';
import { SERVICE_NAME, SolveModule } from './app.module.js';
import type { SolveSettings } from './config.js';
import { PROMPT_VERSION } from './solution/prompt.js';
import { type FakeOpenAiServer, startFakeOpenAiServer } from './testing/fake-openai-server.js';

process.env['LOG_LEVEL'] ??= 'warn';

type Reply = Envelope<MessageData<typeof SolutionGenerated>> | Envelope<MessageData<typeof SolutionFailed>>;

const USER = 'user-42';
let runCounter = 0;

function generateSolution(problem: string, overrides: Partial<MessageData<typeof GenerateSolution>> = {}): MessageData<typeof GenerateSolution> {
  runCounter += 1;
  return {
    runId: deterministicUuid('solve-int-spec', String(Date.now()), String(runCounter)),
    attempt: 1,
    signature: { normalizedText: problem, textSha256: 'b'.repeat(64), topicTags: { subject: 'algebra', keywords: ['equation'] } },
    model: 'local/deterministic',
    fallbackModels: [],
    costCapUsd: 0.5,
    spentUsd: 0,
    ...overrides,
  };
}

describe('solve service on real NATS and PostgreSQL', () => {
  let nats: Awaited<ReturnType<typeof privateNatsServer>>;
  let service: RunningService;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let publisher: JetStreamPublisher;
  let subscription: Subscription;
  let openai: FakeOpenAiServer;
  let blobDir: string;
  let databaseUrl: string;
  let blobs: BlobStore;
  let llmCalls: Record<string, number>;
  let blobCalls: Record<string, number>;
  const replies: Reply[] = [];

  beforeAll(async () => {
    nats = await privateNatsServer();
    databaseUrl = await freshDatabase('solve_service');
    blobDir = await mkdtemp(join(tmpdir(), 'openpaw-solve-int-'));
    // A priced model (openai/gpt-4o-mini) answered by a local server speaking OpenAI's wire format.
    openai = await startFakeOpenAiServer(() => ({
      content: JSON.stringify({
        can_solve: true,
        reason: null,
        steps: [
          { title: 'Subtract 3 from both sides', detail: '\\(2x + 3 - 3 = 7 - 3\\), so \\(2x = 4\\).' },
          { title: 'Divide by 2', detail: '\\[x = \\frac{4}{2} = 2\\]' },
        ],
        final_answer: '\\(x = 2\\)',
      }),
      promptTokens: 400,
      completionTokens: 120,
    }));
    const env = { OPENPAW_BLOB_DIR: blobDir, OPENAI_BASE_URL: openai.baseUrl, OPENAI_API_KEY: 'sk-test-key', OPENPAW_LLM_MAX_ATTEMPTS: '1' };
    const llm = counting<LlmClient>(createLlmFromEnv(env), ['structured']);
    const store = counting<BlobStore>(await createBlobStoreFromEnv(env), ['put']);
    blobs = store.adapter;
    llmCalls = llm.calls;
    blobCalls = store.calls;

    const settings: SolveSettings = { providerEnv: env, messaging: serviceMessagingSettingsFromEnv({ OPENPAW_NATS_URL: nats.url }), databaseUrl, poolSize: 4, maxTokens: 1500, llmTimeoutMs: 10_000, deadlineMs: 30_000, claimLeaseMs: 15_000, claimRenewEveryMs: 5_000, mathsEngine: 'check', mathsBudget: DEFAULT_MATHS_BUDGET, mathsWorkers: undefined, mathsTranslationModel: undefined };
    // 'check': the models answer and the maths engine checks them (this suite is about the model path;
    // the engine-first path is covered by the handler's unit tests and the gateway e2e).
    service = await startService({ name: SERVICE_NAME, module: SolveModule.forRoot(settings, { llm: llm.adapter, blobs }), defaultPort: 0, port: 0 });

    nc = await connectNats({ servers: nats.url, name: 'solve-int-spec' });
    jsm = await jetstreamManager(nc);
    await provisionStreams(jsm);
    publisher = new JetStreamPublisher(jetstream(nc));
    subscription = nc.subscribe('openpaw.evt.solve.>', {
      callback: (_error, msg) => {
        replies.push(msg.json<Reply>());
      },
    });
    await nc.flush();
  });

  afterAll(async () => {
    subscription?.unsubscribe();
    await nc?.close();
    await service?.app.close();
    await openai?.close();
    await nats?.dispose();
    if (blobDir !== undefined) await rm(blobDir, { recursive: true, force: true });
  });

  async function send(data: MessageData<typeof GenerateSolution>): Promise<Envelope<MessageData<typeof GenerateSolution>>> {
    return publisher.publish(GenerateSolution, data, { source: '/openpaw/coordinator', correlationId: data.runId, userId: USER, subject: data.runId });
  }

  function replyTo(command: Envelope, count = 1): Promise<Reply> {
    return waitFor(() => {
      const matching = replies.filter((r) => r.causationid === command.id);
      return matching.length >= count ? matching[count - 1] : undefined;
    }, `reply ${count} to ${command.id}`);
  }

  async function storedEventCount(subject: string): Promise<number> {
    const info = await jsm.streams.info(STREAMS.events.name, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  }

  it('solves "2x + 3 = 7": SolutionGenerated, the HTML with x = 2 in blob storage, provenance', async () => {
    const command = await send(generateSolution('2x + 3 = 7'));
    const reply = await replyTo(command);

    expect(reply).toMatchObject({
      id: deterministicUuid(command.id, SolutionGenerated.subject),
      type: SolutionGenerated.subject,
      source: '/openpaw/solve',
      correlationid: command.correlationid,
      causationid: command.id,
      userid: USER,
    });
    const data = reply.data as MessageData<typeof SolutionGenerated>;
    expect(data).toMatchObject({
      runId: command.data.runId,
      commandId: command.id,
      attempt: 1,
      storageKey: `solutions/${command.data.runId}/1.html`,
      finalAnswer: 'x = 2',
      provenance: { model: 'local/deterministic', promptVersion: PROMPT_VERSION, costUsd: 0, mathsEngine: 'checked_agrees' },
    });

    const { info, body } = await blobs.get(data.storageKey);
    expect(info.contentType).toBe('text/html; charset=utf-8');
    const html = body.toString('utf8');
    expect(html).toMatch(/data-final-answer>[\s\S]*<mi>x<\/mi><mo>=<\/mo><mn>2<\/mn>/);
    expect(html).not.toMatch(/<script|https?:\/\//i);
    const { createHash } = await import('node:crypto');
    expect(data.contentSha256).toBe(createHash('sha256').update(body).digest('hex'));
    const steps = JSON.parse((await blobs.get(`solutions/${command.data.runId}/1.steps.json`)).body.toString('utf8')) as { finalAnswer: string; steps: unknown[] };
    expect(steps.finalAnswer).toBe('x = 2');
    expect(steps.steps).toHaveLength(data.stepCount);
  });

  it('answers a redelivered command with the same event id, without a second LLM call or blob write', async () => {
    const command = await send(generateSolution('Solve 3(x - 2) = 12'));
    const first = await replyTo(command);
    const calls = { llm: llmCalls['structured'], puts: blobCalls['put'] };
    const stored = await storedEventCount(SolutionGenerated.subject);

    // The same envelope again under a new Nats-Msg-Id, as a relay's re-send is: a second delivery.
    await publisher.publishEnvelope(command, { msgId: `${command.id}:redelivered` });
    const second = await replyTo(command, 2);

    expect(second.id).toBe(first.id);
    expect(second.data).toEqual(first.data);
    expect({ llm: llmCalls['structured'], puts: blobCalls['put'] }).toEqual(calls);
    // JetStream dropped the re-published event as a duplicate of the first.
    expect(await storedEventCount(SolutionGenerated.subject)).toBe(stored);

    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const rows = await db.query<{ status: string; command_id: string }>('select status, command_id from solve.solution_attempts where run_id = $1', [
        command.data.runId,
      ]);
      expect(rows.rows).toEqual([{ status: 'done', command_id: command.id }]);
    } finally {
      await db.end();
    }
  });

  it('answers SolutionFailed cannot_solve (not retryable) for a problem the model cannot solve', async () => {
    const puts = blobCalls['put'];
    const command = await send(generateSolution('prove that there are infinitely many primes'));
    const reply = await replyTo(command);
    expect(reply).toMatchObject({ id: deterministicUuid(command.id, SolutionFailed.subject), type: SolutionFailed.subject, causationid: command.id });
    expect(reply.data).toMatchObject({ runId: command.data.runId, commandId: command.id, errorCode: 'cannot_solve', retryable: false, costUsd: 0 });
    expect((reply.data as MessageData<typeof SolutionFailed>).detail).toMatch(/not one the maths engine recognises/);
    expect(blobCalls['put']).toBe(puts);
  });

  it('answers cost_cap_exceeded for a priced model with a cap of 0, before any request is sent', async () => {
    const requests = openai.requests.length;
    const command = await send(generateSolution('2x + 3 = 7', { model: 'openai/gpt-4o-mini', costCapUsd: 0 }));
    const reply = await replyTo(command);
    expect(reply.data).toMatchObject({ errorCode: 'cost_cap_exceeded', retryable: false, costUsd: 0 });
    expect((reply.data as MessageData<typeof SolutionFailed>).detail).toMatch(/cost cap of run .* exceeded: openai\/gpt-4o-mini/);
    expect(openai.requests.length).toBe(requests);
  });

  it('answers cost_cap_exceeded when the run already spent more than its cap', async () => {
    const command = await send(generateSolution('2x + 3 = 7', { costCapUsd: 0.1, spentUsd: 0.25 }));
    expect((await replyTo(command)).data).toMatchObject({ errorCode: 'cost_cap_exceeded', retryable: false });
  });

  it('solves with a priced model within the cap: the real OpenAI adapter, its cost and reported model in the provenance', async () => {
    const requests = openai.requests.length;
    const command = await send(generateSolution('2x + 3 = 7', { model: 'openai/gpt-4o-mini', costCapUsd: 0.05 }));
    const reply = await replyTo(command);
    const data = reply.data as MessageData<typeof SolutionGenerated>;
    expect(reply.type).toBe(SolutionGenerated.subject);
    expect(data.provenance).toMatchObject({ model: 'openai/gpt-4o-mini-2024-07-18', promptVersion: PROMPT_VERSION, inputTokens: 400, outputTokens: 120, mathsEngine: 'checked_agrees' });
    // gpt-4o-mini list price: $0.15 / $0.60 per million tokens.
    expect(data.provenance.costUsd).toBeCloseTo((400 * 0.15 + 120 * 0.6) / 1e6, 12);
    expect(data.finalAnswer).toBe('\\(x = 2\\)');

    expect(openai.requests.length).toBe(requests + 1);
    const request = openai.requests.at(-1)!;
    expect(request.authorization).toBe('Bearer sk-test-key');
    expect(request.body.model).toBe('gpt-4o-mini');
    expect(request.body.messages?.find((m) => m.role === 'user')?.content).toContain('2x + 3 = 7');

    const html = (await blobs.get(data.storageKey)).body.toString('utf8');
    expect(html).toContain('<mfrac><mn>4</mn><mn>2</mn></mfrac>');
    expect(html).toMatch(/data-final-answer>[\s\S]*<mi>x<\/mi><mo>=<\/mo><mn>2<\/mn>/);
    expect(html).not.toMatch(/<script|https?:\/\//i);
  });
});
