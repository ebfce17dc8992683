import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { CreateArtifactJobKeys1764700000000 } from '../../projection/migrations/1764700000000-create-artifact-job-keys.js';
import type { RunSubmission, RunSubmitter } from '../../runs/submit/run-submitter.js';
import { openGatewayUpTo } from '../../testing/migrated-gateway.js';
import { ArtifactJobKeys } from './artifact-job-keys.js';
import { CreateArtifactJobHandler } from './create-artifact-job.handler.js';
import { DatabaseClock } from './database-clock.js';
import type { SnapshotCapture, SnapshotRequest } from './snapshot-capture.js';

/**
 * A deferred snapshot's request time is PostgreSQL's, the clock the artifacts service stamps its
 * sources and chunks by (`created_at = now()`), not the gateway host's: with the gateway's clock an
 * hour fast, `requested_at` still lies between two readings of the database's clock, to the
 * microsecond.
 */
describe('an artifact job deferred by a slow artifacts service (real PostgreSQL)', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openGatewayUpTo(await freshDatabase('gateway_db_clock'), CreateArtifactJobKeys1764700000000);
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  /** Runs `body` with this process's clock (`new Date()`, `Date.now()`) `skewMs` fast, as on a gateway host whose clock drifted. */
  async function withSkewedClock<T>(skewMs: number, body: () => Promise<T>): Promise<T> {
    const RealDate = globalThis.Date;
    class SkewedDate extends RealDate {
      constructor(...args: (number | string | Date)[]) {
        // Date's overloads as one call (TypeScript cannot spread into an overloaded constructor).
        super(...((args.length === 0 ? [RealDate.now() + skewMs] : args) as [number]));
      }
      static override now(): number {
        return RealDate.now() + skewMs;
      }
    }
    globalThis.Date = SkewedDate as DateConstructor;
    try {
      return await body();
    } finally {
      globalThis.Date = RealDate;
    }
  }

  const databaseNow = async (): Promise<string> => new DatabaseClock(dataSource).now();

  it('takes requested_at from the database clock, not the gateway host’s skewed one', async () => {
    const submitted: RunSubmission[] = [];
    const asked: SnapshotRequest[] = [];
    const submitter = {
      lookup: (workflowType: string, userId: string, idempotencyKey: string) => Promise.resolve({ run: { workflowType, userId, idempotencyKey, runId: '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f6' } }),
      submit: (submission: RunSubmission) => Promise.resolve(void submitted.push(submission)),
    } as unknown as RunSubmitter;
    const slowArtifacts = { capture: (request: SnapshotRequest) => Promise.resolve((asked.push(request), { kind: 'timeout' as const })) } as unknown as SnapshotCapture;
    const handler = new CreateArtifactJobHandler(submitter, slowArtifacts, new DatabaseClock(dataSource), new ArtifactJobKeys(dataSource));

    const before = await databaseNow();
    // The gateway host's clock runs an hour fast.
    const skewMs = 3_600_000;
    const created = await withSkewedClock(skewMs, () => handler.execute({ userId: 'u1', notebookId: 'nb1', artifactType: 'quiz', content: 'Create a quiz', sourceIds: [], options: {}, intentReason: 'test' }));
    const after = await databaseNow();

    expect(created).toMatchObject({ kind: 'created', snapshot: 'deferred' });
    expect(asked).toHaveLength(1);
    const requestedAt = submitted[0]?.input['requested_at'] as string;
    expect(requestedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    // ISO 8601 UTC with the same precision sorts as it compares.
    expect([before <= requestedAt, requestedAt <= after]).toEqual([true, true]);
    expect(Date.parse(requestedAt)).toBeLessThan(Date.now() + skewMs / 2);
  });
});
