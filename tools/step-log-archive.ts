import { createHash } from 'node:crypto';
import type { BlobInfo, BlobStore } from '@openpaw/providers/blob';
import type { StepLogRecord } from '@openpaw/saga';
import type { DataSource } from 'typeorm';

/*
 * Step logs are the runs' history (spec 01: complete enough to replay a run), so retention never
 * just deletes them: the step logs of a run that ended longer ago than the horizon are written to
 * blob storage as NDJSON (one row per line, in append order), read back and compared, and only then
 * deleted from PostgreSQL. How long archives are kept is the bucket's lifecycle rule (docs/ops).
 *
 * Crash-safe and repeatable: a run interrupted between the upload and the delete is archived again
 * under the same key with the same rows. A terminal run that is reopened later (a retry) appends new
 * rows; when it ends and ages again they become a second part, `step-logs/<run>/<first id>.ndjson`,
 * so nothing archived earlier is overwritten.
 */

/** What the archiver needs of a blob store. */
export type ArchiveStore = Pick<BlobStore, 'put' | 'get' | 'list'>;

export interface StepLogArchivePolicy {
  /** Step logs of runs in a terminal state for longer than this are archived, then deleted. */
  readonly horizonMs: number;
  readonly terminalStates: readonly string[];
  /** Runs per pass (each run is its own upload and short delete). */
  readonly runsPerPass?: number;
}

/** One archived `coordinator.workflow_step_logs` row (a line of the NDJSON): the saga's record as JSON. */
export type ArchivedStepLog = Omit<StepLogRecord, 'occurredAt'> & {
  /** The row's identity (bigint as text): append order. */
  readonly id: string;
  /** ISO 8601. */
  readonly occurredAt: string;
};

export interface StepLogArchiveResult {
  readonly runs: number;
  readonly rows: number;
}

export const STEP_LOG_ARCHIVE_PREFIX = 'step-logs/';
export const STEP_LOG_ARCHIVE_LOCK_KEY = 'openpaw:step-log-archive';
export const NDJSON = 'application/x-ndjson';

/** The key of the archive part of `runId` that starts at step log `firstId` (ids zero-padded, so keys sort in append order). */
export function stepLogArchiveKey(runId: string, firstId: string): string {
  return `${STEP_LOG_ARCHIVE_PREFIX}${runId}/${firstId.padStart(20, '0')}.ndjson`;
}

interface StepLogRow {
  id: string;
  workflow_run_id: string;
  workflow_type: string;
  attempt_no: number;
  step_name: string;
  state_before: string | null;
  state_after: string;
  payload: Record<string, unknown>;
  occurred_at: Date;
}

const archived = (row: StepLogRow): ArchivedStepLog => ({
  id: row.id,
  workflowRunId: row.workflow_run_id,
  workflowType: row.workflow_type,
  attemptNo: row.attempt_no,
  stepName: row.step_name,
  stateBefore: row.state_before,
  stateAfter: row.state_after,
  payload: row.payload,
  occurredAt: row.occurred_at.toISOString(),
});

const md5Base64 = (body: string): string => createHash('md5').update(body).digest('base64');

/**
 * Archives and deletes the step logs of runs past the horizon, one run at a time, while holding an
 * advisory lock; `undefined` when another archiver holds it.
 */
export async function archiveStepLogs(dataSource: DataSource, store: ArchiveStore, policy: StepLogArchivePolicy): Promise<StepLogArchiveResult | undefined> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    // QueryRunner.query is untyped (any); the row shape is the select's.
    const [lock] = (await runner.query('select pg_try_advisory_lock(hashtext($1)) as locked', [STEP_LOG_ARCHIVE_LOCK_KEY])) as { locked: boolean }[];
    if (lock?.locked !== true) return undefined;
    try {
      return await archivePasses(dataSource, store, policy);
    } finally {
      await runner.query('select pg_advisory_unlock(hashtext($1))', [STEP_LOG_ARCHIVE_LOCK_KEY]);
    }
  } finally {
    await runner.release();
  }
}

async function archivePasses(dataSource: DataSource, store: ArchiveStore, policy: StepLogArchivePolicy): Promise<StepLogArchiveResult> {
  const limit = Math.max(1, Math.floor(policy.runsPerPass ?? 100));
  const cutoff = new Date(Date.now() - policy.horizonMs);
  let runs = 0;
  let rows = 0;
  for (;;) {
    const due = await dataSource.query<{ id: string }[]>(
      `select r.id from coordinator.workflow_runs r
        where r.state = any($1::text[]) and r.updated_at < $2
          and exists (select 1 from coordinator.workflow_step_logs s where s.workflow_run_id = r.id)
        order by r.updated_at, r.id limit $3`,
      [[...policy.terminalStates], cutoff, limit],
    );
    for (const { id } of due) {
      rows += await archiveRun(dataSource, store, id);
      runs += 1;
    }
    if (due.length < limit) return { runs, rows };
  }
}

/** Uploads a run's step logs, checks the upload, deletes exactly the uploaded rows; returns how many. */
async function archiveRun(dataSource: DataSource, store: ArchiveStore, runId: string): Promise<number> {
  const rows = await dataSource.query<StepLogRow[]>(
    `select id::text as id, workflow_run_id, workflow_type, attempt_no, step_name, state_before, state_after, payload, occurred_at
       from coordinator.workflow_step_logs where workflow_run_id = $1 order by id`,
    [runId],
  );
  const first = rows[0];
  const last = rows.at(-1);
  if (first === undefined || last === undefined) return 0;
  const body = rows.map((row) => `${JSON.stringify(archived(row))}\n`).join('');
  const key = stepLogArchiveKey(runId, first.id);
  await store.put(key, body, {
    contentType: NDJSON,
    metadata: { runId, workflowType: first.workflow_type, firstId: first.id, lastId: last.id, rows: String(rows.length) },
  });
  // Read it back before anything is deleted: the archive, not the upload call, is what must hold.
  const stored = await store.get(key);
  if (!stored.body.equals(Buffer.from(body, 'utf8')) || (stored.info.md5Base64 !== undefined && stored.info.md5Base64 !== md5Base64(body))) {
    throw new Error(`step-log archive ${key} does not read back as written; nothing deleted`);
  }
  await dataSource.query('delete from coordinator.workflow_step_logs where workflow_run_id = $1 and id between $2 and $3', [runId, first.id, last.id]);
  return rows.length;
}

/** Every archived step log of a run, in append order (all its parts), for replay or inspection. */
export async function readStepLogArchive(store: ArchiveStore, runId: string): Promise<ArchivedStepLog[]> {
  const parts: BlobInfo[] = [];
  let pageToken: string | undefined;
  do {
    const page = await store.list({ prefix: `${STEP_LOG_ARCHIVE_PREFIX}${runId}/`, pageSize: 1000, ...(pageToken === undefined ? {} : { pageToken }) });
    parts.push(...page.items);
    pageToken = page.nextPageToken;
  } while (pageToken !== undefined);
  const logs: ArchivedStepLog[] = [];
  for (const part of parts) {
    const { body } = await store.get(part.key);
    for (const line of body.toString('utf8').split('\n')) {
      if (line !== '') logs.push(JSON.parse(line) as ArchivedStepLog);
    }
  }
  return logs;
}
