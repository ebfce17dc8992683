import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deterministicUuid } from '@openpaw/contracts';
import { LocalFsBlobStore } from '@openpaw/providers';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { openResearchDatabase } from '../../persistence/database.js';
import { paperSetKey, runPaperSetsPrefix } from '../papers/paper-sets.js';
import { PaperSetRetention } from './paper-set-retention.js';

const DAY_MS = 86_400_000;
const RETENTION_MS = 30 * DAY_MS;
const run = (name: string) => deterministicUuid('paper-set-retention-int-spec', name);

describe('PaperSetRetention (real PostgreSQL, a real local blob store, two replicas)', () => {
  let dir: string;
  let blobs: LocalFsBlobStore;
  let replicaA: DataSource;
  let replicaB: DataSource;

  beforeAll(async () => {
    const databaseUrl = await freshDatabase('research_paper_set_retention');
    replicaA = await openResearchDatabase({ databaseUrl, poolSize: 2 });
    replicaB = await openResearchDatabase({ databaseUrl, poolSize: 2 });
  });
  afterAll(async () => {
    await replicaA?.destroy();
    await replicaB?.destroy();
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paper-set-retention-'));
    blobs = new LocalFsBlobStore({ rootDir: dir, shareSecret: 'secret', shareBaseUrl: 'http://127.0.0.1/v1/shared' });
    await replicaA.query('delete from research.paper_set_run_ends');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const storeLists = async (runId: string, count: number) => {
    for (let i = 0; i < count; i += 1) await blobs.put(paperSetKey(runId, `command-${i}`), '[]', { contentType: 'application/json' });
  };
  const listsOf = async (runId: string) => (await blobs.list({ prefix: runPaperSetsPrefix(runId) })).items.length;
  const endsRecorded = async () => (await replicaA.query<{ run_id: string }[]>('select run_id from research.paper_set_run_ends order by run_id')).map((r) => r.run_id);

  it('deletes the lists of runs that ended more than the retention ago, only those, once, with two replicas sweeping at the same time', async () => {
    // Runs: ended long ago (40 lists), ended recently, never ended
    // (waiting at a checkpoint for months), ended long ago but retried and working again, ended with no lists.
    const [old, recent, waiting, retried, empty, inFlight] = ['old', 'recent', 'waiting', 'retried', 'empty', 'in-flight'].map(run) as [string, string, string, string, string, string];
    await storeLists(old, 40);
    await storeLists(recent, 3);
    await storeLists(waiting, 3);
    await storeLists(retried, 2);
    await storeLists(inFlight, 2);
    const written = Date.now();
    const a = new PaperSetRetention(replicaA, blobs, RETENTION_MS);
    const b = new PaperSetRetention(replicaB, blobs, RETENTION_MS);
    await a.recordEnd(old, new Date(written + 60_000));
    await b.recordEnd(empty, new Date(written + 60_000));
    await a.recordEnd(recent, new Date(written + 2 * 3_600_000));
    // The retried run's lists were written two hours after the end it recorded (work in flight at the end is written within the hour).
    await b.recordEnd(retried, new Date(written - 2 * 3_600_000));
    // Cancelled while a step ran: the step's lists were written ten minutes after the end, and go with the run.
    await a.recordEnd(inFlight, new Date(written - 600_000));

    // A month and an hour on: the cut-off is an hour after the lists were written.
    const sweptAt = new Date(written + RETENTION_MS + 3_600_000);
    const [fromA, fromB] = await Promise.all([a.sweep(sweptAt), b.sweep(sweptAt)]);
    // Each due run was taken by exactly one replica.
    expect(fromA.runsSwept + fromB.runsSwept).toBe(3);
    expect(fromA.runsReopened + fromB.runsReopened).toBe(1);
    expect(fromA.listsDeleted + fromB.listsDeleted).toBe(42);
    expect([await listsOf(old), await listsOf(inFlight)]).toEqual([0, 0]);
    expect([await listsOf(recent), await listsOf(waiting), await listsOf(retried)]).toEqual([3, 3, 2]);
    // The recent end waits for its turn; the retried run's end is forgotten until it ends again.
    expect(await endsRecorded()).toEqual([recent]);

    // Idempotent: a second sweep finds nothing; the recent run's lists go once its retention is past.
    expect(await a.sweep(sweptAt)).toEqual({ runsSwept: 0, listsDeleted: 0, runsReopened: 0 });
    expect(await b.sweep(new Date(written + RETENTION_MS + 3 * 3_600_000))).toEqual({ runsSwept: 1, listsDeleted: 3, runsReopened: 0 });
    expect([await listsOf(recent), await listsOf(waiting)]).toEqual([0, 3]);
  });

  it('keeps the latest end: a redelivered or older end never brings the sweep forward', async () => {
    const ended = run('ended-twice');
    const retention = new PaperSetRetention(replicaA, blobs, RETENTION_MS);
    await retention.recordEnd(ended, new Date('2026-11-20T10:00:00Z'));
    await retention.recordEnd(ended, new Date('2026-11-01T10:00:00Z'));
    await retention.recordEnd(ended, new Date('2026-11-20T10:00:00Z'));
    const [row] = await replicaA.query<{ ended_at: Date }[]>('select ended_at from research.paper_set_run_ends where run_id = $1', [ended]);
    expect(row?.ended_at.toISOString()).toBe('2026-11-20T10:00:00.000Z');
  });

  it('sweeps nothing, and touches no row, when the service has no blob store (lists went inline)', async () => {
    const retention = new PaperSetRetention(replicaA, null, RETENTION_MS);
    await retention.recordEnd(run('inline'), new Date(Date.now() - 2 * RETENTION_MS));
    expect(await retention.sweep(new Date())).toEqual({ runsSwept: 0, listsDeleted: 0, runsReopened: 0 });
    expect(await endsRecorded()).toEqual([run('inline')]);
  });
});
