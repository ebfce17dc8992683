import {
  AssetVersionCreated,
  type AnyMessageDefinition,
  createEnvelope,
  DocumentIndexed,
  MediaNormalized,
  type MessageData,
  ProblemRegistered,
  RETRIEVE_OR_GENERATE,
  RetrievalMiss,
  runIdFor,
  SearchSolutions,
  StartRun,
} from '@openpaw/contracts';
import { openDatabase } from '@openpaw/persistence';
import {
  commandIdFor,
  coordinatorEntities,
  coordinatorMigrations,
  KEY_HOLDER_ENDED_TIMER_PREFIX,
  loadRunWithLogs,
  type OutboxRecord,
  type PendingInput,
  replayRun,
  SagaRegistry,
  SagaStore,
} from '@openpaw/saga';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { createWorkflowDefinitions } from '../index.js';
import { SOLVE_WORKFLOW } from '../shared/workflow-types.js';
import type { SolveView } from '../solve/solve-workflow.definition.js';
import { sha256Of, signature, uuid } from '../testing/saga-driver.js';
import { retrieveOrGenerateDefinition, type RetrieveOrGenerateData } from './retrieve-or-generate.definition.js';

/**
 * Spec 01's idempotency key on the real store: runs of the same problem submitted differently (other
 * byte digests, so other run ids) meet at the key after INGESTING, in concurrent transactions.
 */
describe('retrieve_or_generate: one solve per signature, user and intent (PostgreSQL)', () => {
  let dataSource: DataSource;
  let store: SagaStore;
  const definition = retrieveOrGenerateDefinition();
  const PROBLEM = uuid(0xb1);
  const ASSET = uuid(0xa1);
  const SIG = signature();

  beforeAll(async () => {
    dataSource = await openDatabase({ url: await freshDatabase('rog_claims'), schema: 'coordinator', entities: coordinatorEntities, migrations: coordinatorMigrations });
    store = new SagaStore(dataSource, new SagaRegistry(createWorkflowDefinitions()));
  });

  afterAll(async () => {
    await store.close();
    await dataSource.destroy();
  });

  const runIdOf = (byteKey: string): string => runIdFor(RETRIEVE_OR_GENERATE, byteKey);
  let sequence = 0;
  const event = <M extends AnyMessageDefinition>(runId: string, message: M, data: MessageData<M>): PendingInput => {
    sequence += 1;
    const id = `evt-${sequence}`;
    return { kind: 'input', meta: { messageId: id, runId }, input: { kind: 'event', envelope: createEnvelope(message, data, { id, source: '/test', correlationId: runId }) } };
  };
  const start = (byteKey: string, userId: string, intent = 'solve'): PendingInput => ({
    kind: 'start',
    meta: { messageId: `start-${byteKey}`, runId: runIdOf(byteKey) },
    request: {
      workflowType: RETRIEVE_OR_GENERATE,
      idempotencyKey: byteKey,
      userId,
      input: { submission: { kind: 'text', text: `2x + 3 = 7 (${byteKey})` }, intent, contentDigest: `text:${sha256Of(byteKey.slice(0, 1))}` },
    },
  });
  const normalised = (byteKey: string): PendingInput =>
    event(runIdOf(byteKey), MediaNormalized, { runId: runIdOf(byteKey), commandId: commandIdFor(runIdOf(byteKey), 1, 'ingest:1'), mediaType: 'text', signature: SIG });
  const sent = (outbox: readonly OutboxRecord[], byteKey: string, message: AnyMessageDefinition): OutboxRecord[] =>
    outbox.filter((o) => o.envelope.type === message.subject && o.envelope.correlationid === runIdOf(byteKey));
  const load = async (byteKey: string) => {
    const loaded = await loadRunWithLogs(dataSource, runIdOf(byteKey));
    if (loaded === undefined) throw new Error(`no run ${byteKey}`);
    return loaded;
  };

  it('given two runs of the same problem and user normalised in concurrent transactions, exactly one searches and solves; the other answers with its result', async () => {
    await store.applyBatch([start('a-photo', 'alice'), start('a-retyped', 'alice')]);
    const [first, second] = await Promise.all([store.applyBatch([normalised('a-photo')]), store.applyBatch([normalised('a-retyped')])]);
    const outbox = [...first.outbox, ...second.outbox];
    const searched = ['a-photo', 'a-retyped'].filter((k) => sent(outbox, k, SearchSolutions).length > 0);
    expect(searched).toHaveLength(1);
    const holder = searched[0] ?? '';
    const waiter = holder === 'a-photo' ? 'a-retyped' : 'a-photo';
    const waiting = (await load(waiter)).run;
    expect(waiting).toMatchObject({ state: 'RETRIEVING', data: { stage: 'claiming', waitingForRunId: runIdOf(holder) } });
    expect(waiting.data).not.toHaveProperty('step');

    // The holder misses, solves (its child run), registers and indexes: the only solve of the two.
    const holderId = runIdOf(holder);
    const miss = await store.applyBatch([event(holderId, RetrievalMiss, { runId: holderId, commandId: commandIdFor(holderId, 1, 'retrieve:1'), topCandidate: null, trace: [] })]);
    const solveStarts = miss.outbox.filter((o) => o.envelope.type === StartRun.subject).map((o) => o.envelope.data as MessageData<typeof StartRun>);
    expect(solveStarts.map((s) => s.workflowType)).toEqual([SOLVE_WORKFLOW]);
    const solved: SolveView = {
      status: 'succeeded',
      state: 'SUCCEEDED',
      attempts: 1,
      model: 'local/deterministic',
      cost_usd: 0.02,
      duration_ms: 10,
      storageKey: 'solutions/x.html',
      contentSha256: sha256Of('e'),
      provenance: { model: 'local/deterministic', promptVersion: 'solve-v1', inputTokens: 1, outputTokens: 1, costUsd: 0.02, latencyMs: 1 },
    };
    await store.applyBatch([
      { kind: 'input', meta: { messageId: 'child-finished', runId: holderId }, input: { kind: 'child', childRunId: solveStarts[0]?.runId ?? '', workflowType: SOLVE_WORKFLOW, state: 'SUCCEEDED', view: solved } },
    ]);
    const register = commandIdFor(holderId, 1, 'register:1');
    await store.applyBatch([
      event(holderId, ProblemRegistered, { runId: holderId, commandId: register, problemId: PROBLEM, created: true }),
      event(holderId, AssetVersionCreated, {
        runId: holderId,
        commandId: register,
        problemId: PROBLEM,
        assetVersionId: ASSET,
        assetType: 'solution_html',
        version: 1,
        storageKey: 'solutions/x.html',
        contentType: 'text/html',
      }),
    ]);
    await store.applyBatch([event(holderId, DocumentIndexed, { runId: holderId, commandId: commandIdFor(holderId, 1, 'index:1'), assetVersionId: ASSET, problemId: PROBLEM })]);
    expect((await load(holder)).run.state).toBe('SUCCEEDED');

    // The waiter is told by a due timer (the coordinator's timer poller fires it) and ends with the holder's result.
    const [timer] = await dataSource.query<Array<{ name: string; fire_at: Date; payload: Record<string, unknown> }>>(
      `select name, fire_at, payload from timers where run_id = $1 and starts_with(name, $2)`,
      [runIdOf(waiter), KEY_HOLDER_ENDED_TIMER_PREFIX],
    );
    if (timer === undefined) throw new Error('the waiter was not told');
    await store.applyBatch([
      {
        kind: 'input',
        meta: { messageId: `timer:${timer.name}`, runId: runIdOf(waiter) },
        input: { kind: 'timer', name: timer.name, payload: timer.payload },
        firedTimer: { name: timer.name, fireAt: timer.fire_at },
      },
    ]);
    const answered = await load(waiter);
    expect(answered.run.state).toBe('SUCCEEDED');
    const data = answered.run.data as RetrieveOrGenerateData;
    expect(data).toMatchObject({ stage: 'succeeded', cachedFrom: holderId, result: { outcome: 'new', assetVersionId: ASSET, videoPending: true } });
    expect(data).not.toHaveProperty('solveRunId');
    expect(replayRun(definition, answered.run, answered.logs)).toMatchObject({ ok: true, finalState: 'SUCCEEDED' });
    expect(replayRun(definition, (await load(holder)).run, (await load(holder)).logs)).toMatchObject({ ok: true, finalState: 'SUCCEEDED' });

    // A third submission of the same problem, after the fact, answers at once in the transaction of its claim.
    await store.applyBatch([start('a-third', 'alice')]);
    const third = await store.applyBatch([normalised('a-third')]);
    expect(sent(third.outbox, 'a-third', SearchSolutions)).toEqual([]);
    expect((await load('a-third')).run).toMatchObject({ state: 'SUCCEEDED', data: { cachedFrom: holderId } });
  });

  it('keeps users and intents apart: another user, or the same user with another intent, searches for itself', async () => {
    await store.applyBatch([start('c-carol', 'carol'), start('c-dave', 'dave'), start('c-carol-explains', 'carol', 'explain')]);
    const runs = ['c-carol', 'c-dave', 'c-carol-explains'];
    const results = await Promise.all(runs.map((k) => store.applyBatch([normalised(k)])));
    for (const [i, k] of runs.entries()) {
      expect(sent(results[i]?.outbox ?? [], k, SearchSolutions)).toHaveLength(1);
    }
  });
});
