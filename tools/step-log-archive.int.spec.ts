import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@openpaw/persistence';
import { type BlobStore, LocalFsBlobStore } from '@openpaw/providers/blob';
import { coordinatorEntities, coordinatorMigrations } from '@openpaw/saga';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { archiveStepLogs, type ArchivedStepLog, readStepLogArchive, STEP_LOG_ARCHIVE_LOCK_KEY, stepLogArchiveKey } from './step-log-archive.js';

const DAY = 86_400_000;
const policy = { horizonMs: 30 * DAY, terminalStates: ['SUCCEEDED', 'FAILED'], runsPerPass: 2 };

describe('step-log archive (real PostgreSQL, local blob store)', () => {
  let ds: DataSource;
  let blobDir: string;
  let store: BlobStore;

  beforeAll(async () => {
    ds = await openDatabase({ url: await freshDatabase('step_log_archive'), schema: 'coordinator', entities: coordinatorEntities, migrations: coordinatorMigrations });
    blobDir = mkdtempSync(join(tmpdir(), 'openpaw-archive-'));
    store = new LocalFsBlobStore({ rootDir: blobDir, shareSecret: 'archive-spec-secret', shareBaseUrl: 'http://127.0.0.1:1/v1/shared' });
  });

  afterAll(async () => {
    await ds.destroy();
    rmSync(blobDir, { recursive: true, force: true });
  });

  /** A run in `state` last changed `ageDays` ago, with `steps` step-log rows. */
  async function run(state: string, ageDays: number, steps: number): Promise<string> {
    const id = randomUUID();
    const at = new Date(Date.now() - ageDays * DAY);
    await ds.query(
      `insert into coordinator.workflow_runs (id, type, state, attempt_no, idempotency_key, user_id, parent_run_id, data, version, created_at, updated_at)
       values ($1, 'solve', $2, 1, $3, 'u1', null, '{}'::jsonb, $4, $5, $5)`,
      [id, state, `key-${id}`, steps, at],
    );
    await appendSteps(id, steps, at);
    return id;
  }

  async function appendSteps(runId: string, steps: number, at: Date): Promise<void> {
    for (let i = 0; i < steps; i += 1) {
      await ds.query(
        `insert into coordinator.workflow_step_logs (workflow_run_id, workflow_type, attempt_no, step_name, state_before, state_after, payload, occurred_at)
         values ($1, 'solve', 1, $2, $3, $4, $5::jsonb, $6)`,
        [runId, `step-${i}`, i === 0 ? null : `S${i}`, `S${i + 1}`, JSON.stringify({ input: { kind: 'event', n: i, text: 'déjà\nvu "quoted"' } }), at],
      );
    }
  }

  async function stepLogs(runId: string): Promise<ArchivedStepLog[]> {
    const rows = await ds.query<{ id: string; workflow_run_id: string; step_name: string; state_before: string | null; state_after: string; payload: Record<string, unknown>; occurred_at: Date }[]>(
      'select id::text as id, workflow_run_id, step_name, state_before, state_after, payload, occurred_at from coordinator.workflow_step_logs where workflow_run_id = $1 order by id',
      [runId],
    );
    return rows.map((r) => ({
      id: r.id,
      workflowRunId: r.workflow_run_id,
      workflowType: 'solve',
      attemptNo: 1,
      stepName: r.step_name,
      stateBefore: r.state_before,
      stateAfter: r.state_after,
      payload: r.payload,
      occurredAt: r.occurred_at.toISOString(),
    }));
  }

  it('archives the step logs of runs that ended before the horizon, reads them back whole, and deletes only those', async () => {
    const ended = await Promise.all([run('SUCCEEDED', 40, 4), run('FAILED', 31, 3), run('SUCCEEDED', 45, 2)]);
    const recent = await run('SUCCEEDED', 2, 3);
    const live = await run('WAITING_FOR_SOLUTION', 60, 2);
    const before = new Map(await Promise.all(ended.map(async (id) => [id, await stepLogs(id)] as const)));

    // Three due runs, two per pass: the archiver keeps passing until none is left.
    expect(await archiveStepLogs(ds, store, policy)).toEqual({ runs: 3, rows: 9 });

    for (const id of ended) {
      expect(await stepLogs(id)).toEqual([]);
      expect(await readStepLogArchive(store, id)).toEqual(before.get(id));
    }
    expect(await stepLogs(recent)).toHaveLength(3);
    expect(await stepLogs(live)).toHaveLength(2);
    const [first] = ended;
    const part = await store.get(stepLogArchiveKey(first, before.get(first)?.[0]?.id ?? ''));
    expect(part.info).toMatchObject({ contentType: 'application/x-ndjson', metadata: { runId: first, workflowType: 'solve', rows: '4' } });

    // Nothing is left to archive: a second run does nothing.
    expect(await archiveStepLogs(ds, store, policy)).toEqual({ runs: 0, rows: 0 });
  });

  it('a run reopened after archiving keeps both histories: the later rows become a second part', async () => {
    const id = await run('FAILED', 40, 2);
    const firstHistory = await stepLogs(id);
    await archiveStepLogs(ds, store, policy);
    // Reopened (a retry) long ago, it ran two more steps and failed again.
    await appendSteps(id, 2, new Date(Date.now() - 35 * DAY));
    const secondHistory = await stepLogs(id);
    expect(await archiveStepLogs(ds, store, policy)).toEqual({ runs: 1, rows: 2 });
    expect(await readStepLogArchive(store, id)).toEqual([...firstHistory, ...secondHistory]);
  });

  it('one archiver at a time: another holding the lock means this one does nothing', async () => {
    const id = await run('SUCCEEDED', 50, 1);
    const holder = ds.createQueryRunner();
    await holder.connect();
    await holder.query('select pg_advisory_lock(hashtext($1))', [STEP_LOG_ARCHIVE_LOCK_KEY]);
    try {
      expect(await archiveStepLogs(ds, store, policy)).toBeUndefined();
      expect(await stepLogs(id)).toHaveLength(1);
    } finally {
      await holder.query('select pg_advisory_unlock(hashtext($1))', [STEP_LOG_ARCHIVE_LOCK_KEY]);
      await holder.release();
    }
  });

  it('deletes nothing when the archive does not read back as written', async () => {
    const id = await run('SUCCEEDED', 50, 2);
    // A store that loses what it is given (a misconfigured bucket, a proxy that truncates): the read-back differs.
    const lossy: Pick<BlobStore, 'put' | 'get' | 'list'> = {
      put: (key, body, options) => store.put(key, typeof body === 'string' ? body.slice(0, -10) : body, options),
      get: (key) => store.get(key),
      list: (options) => store.list(options),
    };
    await expect(archiveStepLogs(ds, lossy, policy)).rejects.toThrow('does not read back as written; nothing deleted');
    expect(await stepLogs(id)).toHaveLength(2);
  });
});
