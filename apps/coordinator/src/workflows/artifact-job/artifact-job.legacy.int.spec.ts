import { ARTIFACT_JOB_WORKFLOW, type ArtifactJobInput, ArtifactPlanned, createEnvelope, GenerateArtifact, PlanArtifact, runIdFor, SnapshotCaptured } from '@openpaw/contracts';
import { openDatabase } from '@openpaw/persistence';
import { commandIdFor, coordinatorEntities, coordinatorMigrations, loadRunWithLogs, type PendingInput, SagaRegistry, SagaStore, tryKey, WorkflowRunEntity } from '@openpaw/saga';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { artifactJobDefinition } from './artifact-job.definition.js';
import type { LegacyArtifactJobData } from './artifact-job.legacy.js';
import { DEFAULT_ARTIFACT_JOB_TIMINGS } from './artifact-job.timings.js';

/**
 * `workflow_runs` rows written by the artifact_job definition before the table idiom, in a real
 * PostgreSQL: the coordinator's store loads them and the current definition continues them.
 */
describe('artifact_job runs stored by the previous definition, in PostgreSQL', () => {
  let dataSource: DataSource;
  let store: SagaStore;

  const request: ArtifactJobInput = {
    notebook_id: 'session123',
    artifact_type: 'quiz',
    content: 'Create a quiz on photosynthesis',
    source_ids: [],
    options: { num_questions: 1, difficulty: 'medium' },
    fingerprint: 'b'.repeat(64),
    sequence: 1,
    intent: { router: 'rules', reason: 'matched "quiz"' },
  };
  const snapshot = { chunks: [{ chunk_id: 'chk_a', source_id: 'src', text: 'Chloroplasts contain chlorophyll.' }], source_ids: [], embedding_version: 'v1', captured_at: '2026-01-01T00:00:00.000Z' };
  const plan = { title: 'Photosynthesis', concepts: ['chloroplast'], created_at: '2026-01-01T00:00:01.000Z', model: 'local/deterministic' };

  /** The previous definition's row: its flat data, the awaited command's key in `awaiting`. */
  async function storeLegacyRun(key: string, state: string, fields: Partial<LegacyArtifactJobData>): Promise<string> {
    const id = runIdFor(ARTIFACT_JOB_WORKFLOW, key);
    const data: LegacyArtifactJobData = {
      request,
      progress: 0,
      snapshot: null,
      snapshotCaptured: false,
      plan: null,
      planComputations: 0,
      generation: 1,
      stepTries: 1,
      retries: 0,
      awaiting: null,
      result: null,
      validationError: null,
      error: null,
      ...fields,
    };
    const now = new Date();
    await dataSource.getRepository(WorkflowRunEntity).insert({ id, type: ARTIFACT_JOB_WORKFLOW, state, attemptNo: 1, idempotencyKey: key, userId: 'u1', parentRunId: null, data, version: 2, createdAt: now, updatedAt: now });
    return id;
  }

  const reply = (runId: string, messageId: string, envelope: ReturnType<typeof createEnvelope>): PendingInput => ({ kind: 'input', meta: { messageId, runId }, input: { kind: 'event', envelope } });

  beforeAll(async () => {
    dataSource = await openDatabase({ url: await freshDatabase('artifact_job_legacy'), schema: 'coordinator', entities: coordinatorEntities, migrations: coordinatorMigrations });
    store = new SagaStore(dataSource, new SagaRegistry([artifactJobDefinition(DEFAULT_ARTIFACT_JOB_TIMINGS)]));
  });

  afterAll(async () => {
    await store.close();
    await dataSource.destroy();
  });

  it('continues a job stored while capturing its snapshot, and stores it in the current shape', async () => {
    const runId = await storeLegacyRun('legacy-capturing', 'pending', { awaiting: 'snapshot' });
    const captured = createEnvelope(SnapshotCaptured, { runId, commandId: commandIdFor(runId, 1, 'snapshot'), snapshot }, { id: 'captured-1', source: '/test', correlationId: runId });
    const batch = await store.applyBatch([reply(runId, 'captured-1', captured)]);
    expect(batch.results.map((r) => r.status)).toEqual(['applied']);
    expect(batch.outbox.filter((o) => o.envelope.type === PlanArtifact.subject).map((o) => o.envelope.id)).toEqual([commandIdFor(runId, 1, tryKey('plan:1', 1))]);
    const loaded = await loadRunWithLogs(dataSource, runId);
    expect(loaded?.run.state).toBe('planning');
    expect(loaded?.run.data).toMatchObject({ stage: 'planning', snapshot, step: { name: 'plan:1', tries: 1, waiting: 'reply' } });
  });

  it('continues a job stored while planning: the reply to its `plan:1` command moves it to generating', async () => {
    const runId = await storeLegacyRun('legacy-planning', 'planning', { snapshot, snapshotCaptured: true, awaiting: 'plan:1' });
    const planned = createEnvelope(ArtifactPlanned, { runId, commandId: commandIdFor(runId, 1, 'plan:1'), plan, reused: false, chunksLoaded: 1 }, { id: 'planned-1', source: '/test', correlationId: runId });
    const batch = await store.applyBatch([reply(runId, 'planned-1', planned)]);
    expect(batch.results.map((r) => r.status)).toEqual(['applied']);
    expect(batch.outbox.filter((o) => o.envelope.type === GenerateArtifact.subject)).toHaveLength(1);
    const loaded = await loadRunWithLogs(dataSource, runId);
    expect(loaded?.run.state).toBe('generating');
    expect(loaded?.run.data).toMatchObject({ stage: 'generating', plan, planComputations: 1, progress: 20 });
  });
});
