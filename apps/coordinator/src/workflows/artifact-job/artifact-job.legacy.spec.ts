import {
  ARTIFACT_JOB_WORKFLOW,
  ArtifactGenerated,
  type ArtifactJobInput,
  type ArtifactPlan,
  ArtifactPlanned,
  ArtifactStepFailed,
  ArtifactValidated,
  createEnvelope,
  GenerateArtifact,
  type AnyMessageDefinition,
  type MessageData,
  PlanArtifact,
  type RetrievalSnapshot,
  SnapshotCaptured,
  ValidateArtifact,
} from '@openpaw/contracts';
import { type Applied, applyInput, commandIdFor, type RunRecord, type SagaInput, tryKey } from '@openpaw/saga';
import type { ArtifactJobState } from './artifact-job.data.js';
import { artifactJobDefinition } from './artifact-job.definition.js';
import type { LegacyArtifactJobData } from './artifact-job.legacy.js';
import { DEFAULT_ARTIFACT_JOB_TIMINGS } from './artifact-job.timings.js';

/**
 * Runs stored in PostgreSQL by the definition before the table idiom (flat nullable data, the
 * awaited command's key in `awaiting`, keys `plan:1` and backoff timers `retry:plan`) load and
 * continue under the current one.
 */

const definition = artifactJobDefinition(DEFAULT_ARTIFACT_JOB_TIMINGS);
const RUN_ID = '00000000-0000-4000-8000-0000000000b1';
const S1 = '11111111-1111-4111-8111-111111111111';
const now = new Date('2026-01-01T00:00:10Z');

const request: ArtifactJobInput = {
  notebook_id: 'session123',
  artifact_type: 'quiz',
  content: 'Create a quiz on photosynthesis',
  source_ids: [S1],
  options: { num_questions: 1, difficulty: 'medium' },
  fingerprint: 'a7f9b2c3d4e5f6'.padEnd(64, '0'),
  sequence: 1,
  intent: { router: 'rules', reason: 'matched "quiz"' },
};
const snapshot: RetrievalSnapshot = {
  chunks: [{ chunk_id: 'chk_a', source_id: S1, text: 'Photosynthesis turns light into chemical energy.' }],
  source_ids: [S1],
  embedding_version: 'local/hashed-ngrams-384:chunker-v1',
  captured_at: '2026-01-01T00:00:00.000Z',
};
const plan: ArtifactPlan = { title: 'Photosynthesis', concepts: ['photosynthesis'], created_at: '2026-01-01T00:00:01.000Z', model: 'local/deterministic' };
const quiz: MessageData<typeof ArtifactGenerated>['result'] = {
  questions: [{ question: 'Q1?', options: ['a', 'b', 'c', 'd'], correct_answer: 'a', explanation: 'because', chunk_ids: ['chk_a'] }],
};

/** The previous definition's data as it first stored it (its `init`), with the fields of the point reached. */
function legacy(fields: Partial<LegacyArtifactJobData>): LegacyArtifactJobData {
  return {
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
}

/** A `workflow_runs` row as PostgreSQL returns it (the data through JSON, as jsonb stores it). */
function storedRun(state: ArtifactJobState, data: LegacyArtifactJobData): RunRecord {
  return {
    id: RUN_ID,
    type: ARTIFACT_JOB_WORKFLOW,
    state,
    attemptNo: 1,
    idempotencyKey: 'key-1',
    userId: 'user-1',
    parentRunId: null,
    data: JSON.parse(JSON.stringify(data)) as unknown,
    version: 3,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    updatedAt: new Date('2026-01-01T00:00:05Z'),
  };
}

let sequence = 0;
function apply(run: RunRecord, input: SagaInput): Applied {
  sequence += 1;
  return applyInput(definition, run, input, { messageId: `msg-${sequence}`, runId: run.id }, now);
}

function event<M extends AnyMessageDefinition>(message: M, data: MessageData<M>): SagaInput {
  sequence += 1;
  return { kind: 'event', envelope: createEnvelope(message, data, { id: `evt-${sequence}`, source: '/openpaw/test', correlationId: RUN_ID, time: now }) };
}

/** The id of a command the previous definition sent under `key`. */
const legacyCommand = (key: string): string => commandIdFor(RUN_ID, 1, key);
const sent = <M extends AnyMessageDefinition>(applied: Applied, message: M) => applied.outbox.filter((o) => o.envelope.type === message.subject);
const viewOf = (run: RunRecord) => definition.view(run as Parameters<typeof definition.view>[0]);

describe('artifact_job runs stored by the previous definition', () => {
  it('pending, capturing the snapshot: the reply to its CaptureSnapshot moves it to planning, stored in the current shape', () => {
    const run = storedRun('pending', legacy({ awaiting: 'snapshot' }));
    const applied = apply(run, event(SnapshotCaptured, { runId: RUN_ID, commandId: legacyCommand('snapshot'), snapshot }));
    expect(applied.run?.state).toBe('planning');
    expect(applied.run?.data).toMatchObject({ stage: 'planning', snapshot, step: { name: 'plan:1', tries: 1, waiting: 'reply' } });
    expect(sent(applied, PlanArtifact).map((o) => o.envelope.id)).toEqual([commandIdFor(RUN_ID, 1, tryKey('plan:1', 1))]);
  });

  it('pending, capturing the snapshot: its old step timeout fails it as before', () => {
    const applied = apply(storedRun('pending', legacy({ awaiting: 'snapshot' })), { kind: 'timer', name: 'timeout:snapshot', payload: { key: 'snapshot', resends: 2 } });
    expect(applied.run?.state).toBe('failed');
    expect(viewOf(applied.run as RunRecord)).toMatchObject({ status: 'failed', error: 'snapshot capture timed out', snapshot: null, plan: null });
  });

  it('planning, its first try awaited (key `plan:1`): the plan moves it on; a failure of that try is retried with backoff', () => {
    const data = legacy({ progress: 0, snapshot, snapshotCaptured: true, awaiting: 'plan:1' });
    const planned = apply(storedRun('planning', data), event(ArtifactPlanned, { runId: RUN_ID, commandId: legacyCommand('plan:1'), plan, reused: false, chunksLoaded: 1 }));
    expect(planned.run?.state).toBe('generating');
    expect(sent(planned, GenerateArtifact).map((o) => o.envelope.data)).toEqual([expect.objectContaining({ plan, generation: 1, chunks: snapshot.chunks })]);

    const failed = apply(
      storedRun('planning', data),
      event(ArtifactStepFailed, { runId: RUN_ID, commandId: legacyCommand('plan:1'), step: 'planning', errorCode: 'llm_unavailable', error: 'every model failed' }),
    );
    expect(failed.outcome).toBe('applied');
    expect(failed.run?.state).toBe('planning');
    expect(failed.timers).toContainEqual(expect.objectContaining({ op: 'set', name: 'retry:plan:1' }));
    // A reply to a command it never sent is still stale.
    expect(apply(storedRun('planning', data), event(ArtifactPlanned, { runId: RUN_ID, commandId: legacyCommand('plan:2'), plan, reused: false, chunksLoaded: 1 })).outcome).toBe('ignored');
  });

  it('planning, its first try timed out (`timeout:plan:1`): retried, and the next try is keyed as the previous definition would have (`plan:1:2`)', () => {
    const timedOut = apply(storedRun('planning', legacy({ snapshot, snapshotCaptured: true, awaiting: 'plan:1' })), { kind: 'timer', name: 'timeout:plan:1', payload: {} });
    expect(timedOut.run?.state).toBe('planning');
    const timer = timedOut.timers.find((t) => t.op === 'set' && t.name === 'retry:plan:1');
    if (timer?.op !== 'set') throw new Error('no backoff timer');
    const retried = apply(timedOut.run as RunRecord, { kind: 'timer', name: timer.name, payload: timer.payload });
    expect(sent(retried, PlanArtifact).map((o) => o.envelope.id)).toEqual([legacyCommand('plan:1:2')]);
  });

  it('planning, waiting for its old backoff timer (`retry:plan`): the timer sends the next try, keyed as before', () => {
    const data = legacy({ snapshot, snapshotCaptured: true, awaiting: null, stepTries: 2 });
    expect(apply(storedRun('planning', data), { kind: 'timer', name: 'retry:plan', payload: { step: 'plan', tries: 3, generation: 1 } }).outcome).toBe('ignored');
    const retried = apply(storedRun('planning', data), { kind: 'timer', name: 'retry:plan', payload: { step: 'plan', tries: 2, generation: 1 } });
    expect(sent(retried, PlanArtifact).map((o) => o.envelope.id)).toEqual([legacyCommand('plan:1:2')]);
    expect(retried.run?.data).toMatchObject({ stage: 'planning', step: { name: 'plan:1', tries: 2, waiting: 'reply' } });
  });

  it('generating, a later try awaited (`generate:1:2`, keyed as now): the artifact moves it to validating', () => {
    const data = legacy({ progress: 20, snapshot, snapshotCaptured: true, plan, planComputations: 1, awaiting: 'generate:1:2', stepTries: 2 });
    const applied = apply(
      storedRun('generating', data),
      event(ArtifactGenerated, { runId: RUN_ID, commandId: legacyCommand('generate:1:2'), generation: 1, result: quiz, itemCount: 1, model: 'local/deterministic' }),
    );
    expect(applied.run?.state).toBe('validating');
    expect(sent(applied, ValidateArtifact).map((o) => o.envelope.data)).toEqual([expect.objectContaining({ result: quiz, generation: 1 })]);
  });

  it('validating (`validate:1`): valid completes it with the result; its old timeout retries it', () => {
    const data = legacy({ progress: 90, snapshot, snapshotCaptured: true, plan, planComputations: 1, result: quiz, awaiting: 'validate:1' });
    const completed = apply(storedRun('validating', data), event(ArtifactValidated, { runId: RUN_ID, commandId: legacyCommand('validate:1'), generation: 1, valid: true, error: null, errors: [] }));
    expect(completed.run?.state).toBe('completed');
    expect(viewOf(completed.run as RunRecord)).toMatchObject({ status: 'completed', progress: 100, result: quiz, plan, plan_computations: 1 });
    const timedOut = apply(storedRun('validating', data), { kind: 'timer', name: 'timeout:validate:1', payload: {} });
    expect(timedOut.run?.state).toBe('validating');
    expect(timedOut.timers).toContainEqual(expect.objectContaining({ op: 'set', name: 'retry:validate:1' }));
  });

  it('pending, queued for the validation retry: its retry timer hands it to a worker with the stored plan', () => {
    const data = legacy({ snapshot, snapshotCaptured: true, plan, planComputations: 1, generation: 2, retries: 1, validationError: "Missing 'questions' field" });
    const applied = apply(storedRun('pending', data), { kind: 'timer', name: 'retry', payload: {} });
    expect(applied.run?.state).toBe('planning');
    expect(sent(applied, PlanArtifact).map((o) => o.envelope.data)).toEqual([expect.objectContaining({ storedPlan: plan, chunks: snapshot.chunks })]);
    expect(sent(applied, PlanArtifact).map((o) => o.envelope.id)).toEqual([commandIdFor(RUN_ID, 1, tryKey('plan:2', 1))]);
  });

  it('shows the view the previous definition showed, in every state', () => {
    const base = { job_id: RUN_ID, artifact_type: 'quiz', notebook_id: 'session123', source_ids: [S1], fingerprint: request.fingerprint, sequence: 1 };
    const snapshotView = { source_ids: [S1], chunk_ids: ['chk_a'], embedding_version: snapshot.embedding_version, captured_at: snapshot.captured_at };
    const captured = { snapshot, snapshotCaptured: true };
    expect(viewOf(storedRun('pending', legacy({ awaiting: 'snapshot' })))).toEqual({
      ...base,
      status: 'pending',
      progress: 0,
      snapshot: null,
      plan: null,
      plan_computations: 0,
      retries: 0,
      result: null,
      error: null,
      validation_error: null,
    });
    expect(viewOf(storedRun('generating', legacy({ ...captured, progress: 20, plan, planComputations: 1, awaiting: 'generate:1' })))).toEqual({
      ...base,
      status: 'generating',
      progress: 20,
      snapshot: snapshotView,
      plan,
      plan_computations: 1,
      retries: 0,
      result: null,
      error: null,
      validation_error: null,
    });
    expect(viewOf(storedRun('completed', legacy({ ...captured, progress: 100, plan, planComputations: 1, result: quiz, retries: 1 })))).toEqual({
      ...base,
      status: 'completed',
      progress: 100,
      snapshot: snapshotView,
      plan,
      plan_computations: 1,
      retries: 1,
      result: quiz,
      error: null,
      validation_error: null,
    });
    expect(
      viewOf(storedRun('failed', legacy({ ...captured, progress: 90, plan, planComputations: 1, generation: 2, retries: 1, validationError: 'bad', error: 'validation failed after 1 retry: bad' }))),
    ).toEqual({
      ...base,
      status: 'failed',
      progress: 90,
      snapshot: snapshotView,
      plan,
      plan_computations: 1,
      retries: 1,
      result: null,
      error: 'validation failed after 1 retry: bad',
      validation_error: 'bad',
    });
  });
});
