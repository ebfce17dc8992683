import { ARTIFACT_JOB_WORKFLOW } from '@openpaw/contracts';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { RunEventBus } from '../../events/run-event-bus.js';
import { CreateArtifactJobKeys1764700000000 } from '../../projection/migrations/1764700000000-create-artifact-job-keys.js';
import type { RunProjection, RunProjectionStore } from '../../projection/run-projection.store.js';
import type { CommandPublisher } from '../../runs/ports.js';
import { RunSubmitter } from '../../runs/submit/run-submitter.js';
import { openGatewayUpTo } from '../../testing/migrated-gateway.js';
import { ArtifactJobKeys } from './artifact-job-keys.js';
import { type ArtifactJobOutcome, type CreateArtifactJobCommand, CreateArtifactJobHandler } from './create-artifact-job.handler.js';
import { DatabaseClock } from './database-clock.js';
import type { SnapshotCapture } from './snapshot-capture.js';

interface SentStartRun {
  readonly runId: string;
  readonly messageId: string;
  readonly input: Record<string, unknown>;
}

/**
 * Issue 27's doubled artifact job: a client retries `POST /ai/chat` with the same Idempotency-Key after
 * a 503 or a timeout, and the first job has ended meanwhile. The job's run id comes from its
 * fingerprint's sequence, so the retry used to find job 1 ended and start job 2 (a second round of
 * model calls). The key's job is now recorded (real PostgreSQL) before its `StartRun` is sent. The
 * projection is a map the test moves; the `StartRun`s are counted where the real `RunSubmitter` publishes them.
 */
describe('POST /ai/chat with an Idempotency-Key: the key is its job (real PostgreSQL)', () => {
  let dataSource: DataSource;
  let sent: SentStartRun[];
  let projected: Map<string, RunProjection>;
  /** How many of the next publishes fail (the bus not answering: the route's 503). */
  let failingPublishes: number;
  let handler: CreateArtifactJobHandler;

  beforeAll(async () => {
    dataSource = await openGatewayUpTo(await freshDatabase('gateway_artifact_job_keys'), CreateArtifactJobKeys1764700000000);
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  beforeEach(() => {
    sent = [];
    projected = new Map();
    failingPublishes = 0;
    const runs = { findForUser: (runId: string, userId: string) => Promise.resolve([projected.get(runId)].find((run) => run?.userId === userId)) } as unknown as RunProjectionStore;
    const publisher = {
      publish: (_type: unknown, data: { runId: string; input: Record<string, unknown> }, meta: { id: string }) => {
        if (failingPublishes > 0) {
          failingPublishes -= 1;
          return Promise.reject(new Error('no JetStream ack (an election)'));
        }
        sent.push({ runId: data.runId, messageId: meta.id, input: data.input });
        return Promise.resolve();
      },
    } as unknown as CommandPublisher;
    // The artifacts service too slow to capture: the job is started with its request time (no capture to fake).
    const slowArtifacts = { capture: () => Promise.resolve({ kind: 'timeout' as const }) } as unknown as SnapshotCapture;
    handler = new CreateArtifactJobHandler(new RunSubmitter(runs, new RunEventBus(), publisher), slowArtifacts, new DatabaseClock(dataSource), new ArtifactJobKeys(dataSource));
  });

  /** The coordinator's side, as the projection shows it: the run in `state`. */
  function project(runId: string, userId: string, state: string, terminal: boolean): void {
    const at = new Date();
    projected.set(runId, { runId, workflowType: ARTIFACT_JOB_WORKFLOW, userId, parentRunId: null, view: {}, createdAt: at, updatedAt: at, attemptStartedAt: at, state, terminal, attemptNo: 1, version: 1 });
  }

  const request = (userId: string, idempotencyKey?: string, content = 'Create a quiz on photosynthesis'): CreateArtifactJobCommand => ({
    userId,
    notebookId: 'nb-keys',
    artifactType: 'quiz',
    content,
    sourceIds: ['5e0c4a44-2b8d-4f8a-9a43-6c3f6f3f2a12', '0b0c9f6e-6c8e-4c4e-9a43-6c3f6f3f2a11'],
    options: { num_questions: 3, difficulty: 'medium' },
    intentReason: 'create quiz',
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
  });

  const jobIdOf = (outcome: ArtifactJobOutcome): string => (outcome.kind === 'created' ? outcome.jobId : `not created: ${outcome.kind}`);

  it('answers a repeat sent after the job ended with that job, starting nothing (without a key the same request is job 2)', async () => {
    const first = await handler.execute(request('u-ended', 'retry-1'));
    expect(first).toMatchObject({ kind: 'created', existing: false, status: 'pending', sequence: 1, snapshot: 'deferred' });
    const jobId = jobIdOf(first);
    expect(sent.map((s) => s.runId)).toEqual([jobId]);
    project(jobId, 'u-ended', 'completed', true);

    const repeat = await handler.execute(request('u-ended', 'retry-1'));
    expect(repeat).toMatchObject({ kind: 'created', jobId, existing: true, ended: true, status: 'completed', sequence: 1 });
    expect(sent).toHaveLength(1);

    // The same request without the key is a new request: spec 02's next job (what the retry used to get).
    const unkeyed = await handler.execute(request('u-ended'));
    expect(unkeyed).toMatchObject({ kind: 'created', existing: false, sequence: 2 });
    expect(jobIdOf(unkeyed)).not.toBe(jobId);
    expect(sent).toHaveLength(2);
  });

  it('refuses the key sent with another request, naming its job, and starts nothing', async () => {
    const jobId = jobIdOf(await handler.execute(request('u-reused', 'reused-1')));
    const other = await handler.execute(request('u-reused', 'reused-1', 'Create a quiz on the Calvin cycle'));
    expect(other).toEqual({ kind: 'key_reused', jobId });
    const otherOptions = await handler.execute({ ...request('u-reused', 'reused-1'), options: { num_questions: 5, difficulty: 'medium' } });
    expect(otherOptions).toEqual({ kind: 'key_reused', jobId });
    expect(sent.map((s) => s.runId)).toEqual([jobId]);
  });

  it('sends the recorded StartRun again when the first never left (the publish failed after the key was recorded)', async () => {
    failingPublishes = 1;
    await expect(handler.execute(request('u-unsent', 'unsent-1'))).rejects.toThrow(/no JetStream ack/);
    expect(sent).toEqual([]);

    const repeat = await handler.execute(request('u-unsent', 'unsent-1'));
    expect(repeat).toMatchObject({ kind: 'created', existing: false, status: 'pending', sequence: 1, snapshot: 'deferred' });
    const [resent] = sent;
    expect(resent?.runId).toBe(jobIdOf(repeat));
    // The input recorded before the first send: the same request time, so the same snapshot.
    expect(resent?.input).toMatchObject({ sequence: 1, content: 'Create a quiz on photosynthesis', requested_at: expect.stringMatching(/Z$/) as unknown });

    // Sent a third time before the projection knows it: the same StartRun (message id), which JetStream drops.
    await handler.execute(request('u-unsent', 'unsent-1'));
    expect(sent.map((s) => s.messageId)).toEqual([resent?.messageId, resent?.messageId]);
  });

  it('gives concurrent requests with one key one job, and keys stay per user', async () => {
    const burst = await Promise.all(Array.from({ length: 6 }, () => handler.execute(request('u-burst', 'burst-1'))));
    const jobIds = new Set(burst.map(jobIdOf));
    expect(jobIds.size).toBe(1);
    expect(new Set(sent.map((s) => s.messageId)).size).toBe(1);

    // Another user's equal key and request is that user's own job.
    const theirs = await handler.execute(request('u-other', 'burst-1'));
    expect(jobIds.has(jobIdOf(theirs))).toBe(false);
  });

  it('records a key that met an active job of the same request: after that job ends, the key is still that job', async () => {
    const started = jobIdOf(await handler.execute(request('u-active')));
    project(started, 'u-active', 'generating', false);
    expect(await handler.execute(request('u-active', 'joined-1'))).toMatchObject({ kind: 'created', jobId: started, existing: true, status: 'generating' });
    project(started, 'u-active', 'completed', true);
    expect(await handler.execute(request('u-active', 'joined-1'))).toMatchObject({ kind: 'created', jobId: started, ended: true });
    expect(sent.map((s) => s.runId)).toEqual([started]);
  });
});
