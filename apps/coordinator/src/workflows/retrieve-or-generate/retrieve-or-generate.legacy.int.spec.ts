import {
  AssetVersionCreated,
  type AnyMessageDefinition,
  createEnvelope,
  DocumentIndexed,
  IndexDocument,
  type MessageData,
  ProblemRegistered,
  RegisterSolution,
  RETRIEVE_OR_GENERATE,
  RetrievalMiss,
  runIdFor,
  StartRun,
} from '@openpaw/contracts';
import { openDatabase } from '@openpaw/persistence';
import { childRunIdFor, commandIdFor, coordinatorEntities, coordinatorMigrations, loadRunWithLogs, type PendingInput, SagaRegistry, SagaStore, WorkflowRunEntity } from '@openpaw/saga';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { createWorkflowDefinitions } from '../index.js';
import { DEFAULT_POLICY_CONFIG, PolicyEngine } from '../policy/index.js';
import { SOLVE_WORKFLOW, VIDEO_WORKFLOW } from '../shared/workflow-types.js';
import type { SolveView } from '../solve/solve-workflow.definition.js';
import { sha256Of, signature, uuid } from '../testing/saga-driver.js';
import { problemKeyOf } from './problem-key.js';
import { SOLVE_CHILD_KEY } from './retrieve-or-generate.commands.js';
import type { LegacyRetrieveOrGenerateData } from './retrieve-or-generate.legacy.js';

/**
 * `workflow_runs` rows written by the retrieve_or_generate definition before the per-stage data (one
 * flat record of nullable fields), in a real PostgreSQL: the coordinator's store loads them mid-flight
 * and the current definition carries them on to SUCCEEDED.
 */
describe('retrieve_or_generate runs stored by the previous definition, in PostgreSQL', () => {
  let dataSource: DataSource;
  let store: SagaStore;
  const USER = 'user-1';
  const SIG = signature();
  const PROBLEM = uuid(0xb1);
  const ASSET = uuid(0xa1);
  const request = { submission: { kind: 'text' as const, text: '2x + 3 = 7' }, subscriptionTier: 'free' as const, contentSensitivity: 'standard' as const, contentDigest: sha256Of('d') };
  const policy = new PolicyEngine(DEFAULT_POLICY_CONFIG).getPolicy(RETRIEVE_OR_GENERATE, USER, 'free', 'standard');
  const solution = {
    storageKey: 'solutions/legacy.html',
    contentSha256: sha256Of('e'),
    provenance: { model: 'local/deterministic', promptVersion: 'solve-v1', inputTokens: 1, outputTokens: 1, costUsd: 0.02, latencyMs: 1 },
  };

  /** The previous definition's row: its flat data, with the fields of the point it had reached. */
  async function storeLegacyRun(key: string, state: string, fields: Partial<LegacyRetrieveOrGenerateData>): Promise<string> {
    const id = runIdFor(RETRIEVE_OR_GENERATE, key);
    const data: LegacyRetrieveOrGenerateData = {
      request,
      policy,
      startedAt: new Date().toISOString(),
      step: null,
      signature: SIG,
      mediaType: 'text',
      topCandidate: null,
      problemKey: problemKeyOf(SIG, USER, undefined),
      waitingForRunId: null,
      cachedFrom: null,
      solveRunId: null,
      solution: null,
      problemRegistered: null,
      assetVersionCreated: null,
      result: null,
      costUsd: 0,
      errorCode: null,
      ...fields,
    };
    const now = new Date();
    await dataSource.getRepository(WorkflowRunEntity).insert({ id, type: RETRIEVE_OR_GENERATE, state, attemptNo: 1, idempotencyKey: key, userId: USER, parentRunId: null, data, version: 4, createdAt: now, updatedAt: now });
    return id;
  }

  let sequence = 0;
  const event = <M extends AnyMessageDefinition>(runId: string, message: M, data: MessageData<M>): PendingInput => {
    sequence += 1;
    const id = `legacy-evt-${sequence}`;
    return { kind: 'input', meta: { messageId: id, runId }, input: { kind: 'event', envelope: createEnvelope(message, data, { id, source: '/test', correlationId: runId }) } };
  };
  const registryEvents = (runId: string): PendingInput[] => {
    const register = commandIdFor(runId, 1, 'register:1');
    return [
      event(runId, ProblemRegistered, { runId, commandId: register, problemId: PROBLEM, created: true }),
      event(runId, AssetVersionCreated, { runId, commandId: register, problemId: PROBLEM, assetVersionId: ASSET, assetType: 'solution_html', version: 1, storageKey: solution.storageKey, contentType: 'text/html' }),
    ];
  };
  const indexed = (runId: string): PendingInput => event(runId, DocumentIndexed, { runId, commandId: commandIdFor(runId, 1, 'index:1'), assetVersionId: ASSET, problemId: PROBLEM });
  const load = async (runId: string) => {
    const loaded = await loadRunWithLogs(dataSource, runId);
    if (loaded === undefined) throw new Error(`no run ${runId}`);
    return loaded.run;
  };

  beforeAll(async () => {
    dataSource = await openDatabase({ url: await freshDatabase('rog_legacy'), schema: 'coordinator', entities: coordinatorEntities, migrations: coordinatorMigrations });
    store = new SagaStore(dataSource, new SagaRegistry(createWorkflowDefinitions()));
  });

  afterAll(async () => {
    await store.close();
    await dataSource.destroy();
  });

  it('given a run stored while retrieval searched (`retrieve:1` awaited), when the miss, the solve, registration and indexing come in, then SUCCEEDED, written in the current shape from its first change', async () => {
    const runId = await storeLegacyRun('legacy-searching', 'RETRIEVING', { step: { name: 'retrieve', tries: 1, waiting: 'reply' } });

    const miss = await store.applyBatch([event(runId, RetrievalMiss, { runId, commandId: commandIdFor(runId, 1, 'retrieve:1'), topCandidate: null, trace: [] })]);
    expect(miss.results.map((r) => r.status)).toEqual(['applied']);
    const solveRunId = childRunIdFor({ id: runId, attemptNo: 1 }, SOLVE_WORKFLOW, SOLVE_CHILD_KEY);
    expect(miss.outbox.filter((o) => o.envelope.type === StartRun.subject).map((o) => (o.envelope.data as MessageData<typeof StartRun>).runId)).toEqual([solveRunId]);
    const generating = await load(runId);
    expect(generating).toMatchObject({ state: 'GENERATING_SOLUTION', data: { stage: 'generating', solveRunId, topCandidate: null, signature: SIG } });
    expect(generating.data).not.toHaveProperty('step');

    const solved: SolveView = { status: 'succeeded', state: 'SUCCEEDED', attempts: 1, model: 'local/deterministic', cost_usd: 0.02, duration_ms: 10, ...solution };
    const registering = await store.applyBatch([{ kind: 'input', meta: { messageId: 'legacy-child', runId }, input: { kind: 'child', childRunId: solveRunId, workflowType: SOLVE_WORKFLOW, state: 'SUCCEEDED', view: solved } }]);
    expect(registering.outbox.filter((o) => o.envelope.type === RegisterSolution.subject).map((o) => o.envelope.id)).toEqual([commandIdFor(runId, 1, 'register:1')]);

    const registered = await store.applyBatch(registryEvents(runId));
    expect(registered.outbox.filter((o) => o.envelope.type === IndexDocument.subject)).toHaveLength(1);
    await store.applyBatch([indexed(runId)]);

    const succeeded = await load(runId);
    expect(succeeded.state).toBe('SUCCEEDED');
    expect(succeeded.data).toMatchObject({ stage: 'succeeded', costUsd: 0.02, result: { outcome: 'new', assetVersionId: ASSET, videoPending: true, isApproximate: false } });
  });

  it('given a run stored in REGISTERING with ProblemRegistered in, when AssetVersionCreated and the index come in, then SUCCEEDED with its video started', async () => {
    const runId = await storeLegacyRun('legacy-registering', 'REGISTERING', {
      step: { name: 'register', tries: 1, waiting: 'reply' },
      solveRunId: uuid(0x50),
      solution,
      costUsd: 0.02,
      problemRegistered: { problemId: PROBLEM, created: true },
    });
    const [, assetVersionCreated] = registryEvents(runId);
    if (assetVersionCreated === undefined) throw new Error('no AssetVersionCreated');
    await store.applyBatch([assetVersionCreated]);
    expect((await load(runId)).data).toMatchObject({ stage: 'indexing', problemRegistered: { problemId: PROBLEM }, assetVersionCreated: { assetVersionId: ASSET } });

    const done = await store.applyBatch([indexed(runId)]);
    expect((await load(runId)).state).toBe('SUCCEEDED');
    expect(done.outbox.filter((o) => o.envelope.type === StartRun.subject).map((o) => (o.envelope.data as MessageData<typeof StartRun>).workflowType)).toEqual([VIDEO_WORKFLOW]);
  });
});
