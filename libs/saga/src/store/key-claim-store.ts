import type { ClaimInput } from '../definition.js';
import { keyHolderEndedPayload, KEY_HOLDER_ENDED_TIMER_PREFIX, keyHolderOf, releasesKey } from '../key-claims.js';
import type { KeyClaim, RunRecord, TimerOperation } from '../records.js';
import type { SagaRegistry } from '../registry.js';
import { RUN_COLUMNS, type RunRow, toRunRecord, type TransactionQuery } from './run-rows.js';

/**
 * Idempotency key claims in the store's transaction (`coordinator.run_keys`, one holder per
 * (workflow type, user, key)). A claim inserts the key, or locks its row and reads the holder run:
 * the claimant itself (a re-attempt) or a holder that gave the key up (`keyClaims.releasedIn`, or a
 * run that no longer exists) → the claimant takes it; any other holder → `held`, and a claimant of a
 * holder still going is added to the row's waiters. A holder that ends locks its rows and takes the
 * waiters, each told by a due timer. The row lock orders the two: either the claimant sees the
 * holder ended, or the holder sees the claimant waiting.
 */

export interface ClaimAnswer {
  readonly claim: KeyClaim;
  readonly input: ClaimInput;
}

/** A key's row: one holder per (workflow type, user, key). */
export const keyClaimRowKey = (c: { workflowType: string; userId: string; key: string }): string => `${c.workflowType}\u0000${c.userId}\u0000${c.key}`;
const rowKey = keyClaimRowKey;

/** The one order every transaction inserts and locks keys in: no deadlocks between claimants. */
export function sortedForInsert(claims: readonly KeyClaim[]): KeyClaim[] {
  return [...claims].sort((a, b) => rowKey(a).localeCompare(rowKey(b)) || a.runId.localeCompare(b.runId));
}

/** The message id of the engine's answer to a claim (its step log and replay name it). */
export const claimAnswerMessageId = (claim: KeyClaim): string => `${claim.meta.messageId}:claim:${claim.key}`;

interface KeyRow {
  workflow_type: string;
  user_id: string;
  key: string;
  run_id: string;
  waiters: string[];
}

export async function claimKeys(
  query: TransactionQuery,
  claims: readonly KeyClaim[],
  registry: SagaRegistry,
  batchRuns: ReadonlyMap<string, RunRecord>,
): Promise<ClaimAnswer[]> {
  const sorted = sortedForInsert(claims);
  const inserted = (await query(
    `insert into run_keys (workflow_type, user_id, key, run_id, claimed_at)
     select workflow_type, user_id, key, run_id, now() from unnest($1::text[], $2::text[], $3::text[], $4::uuid[]) as c(workflow_type, user_id, key, run_id)
     on conflict do nothing returning workflow_type, user_id, key, run_id`,
    [sorted.map((c) => c.workflowType), sorted.map((c) => c.userId), sorted.map((c) => c.key), sorted.map((c) => c.runId)],
  )) as KeyRow[];
  const holders = new Map<string, string>(inserted.map((row) => [rowKey({ workflowType: row.workflow_type, userId: row.user_id, key: row.key }), row.run_id]));
  const contested = sorted.filter((c) => !holders.has(rowKey(c)));
  if (contested.length > 0) {
    const locked = (await query(
      `select workflow_type, user_id, key, run_id from run_keys
       where (workflow_type, user_id, key) in (select * from unnest($1::text[], $2::text[], $3::text[]))
       order by workflow_type, user_id, key for update`,
      [contested.map((c) => c.workflowType), contested.map((c) => c.userId), contested.map((c) => c.key)],
    )) as KeyRow[];
    for (const row of locked) holders.set(rowKey({ workflowType: row.workflow_type, userId: row.user_id, key: row.key }), row.run_id);
  }
  const holderRuns = await loadRuns(query, [...new Set(holders.values())], batchRuns);

  const answers: ClaimAnswer[] = [];
  const changed = new Map<string, { claim: KeyClaim; holder: string; waiters: Set<string> }>();
  const changeOf = (claim: KeyClaim) => {
    const key = rowKey(claim);
    const entry = changed.get(key) ?? { claim, holder: holders.get(key) ?? claim.runId, waiters: new Set<string>() };
    changed.set(key, entry);
    return entry;
  };
  for (const claim of sorted) {
    const key = rowKey(claim);
    const holderId = holders.get(key) ?? claim.runId;
    const holderRun = holderRuns.get(holderId);
    const definition = holderRun === undefined ? undefined : registry.get(holderRun.type);
    if (holderId === claim.runId || holderRun === undefined || definition === undefined || releasesKey(definition, holderRun)) {
      if (holderId !== claim.runId) {
        holders.set(key, claim.runId);
        changeOf(claim).holder = claim.runId;
      }
      answers.push({ claim, input: { kind: 'claim', key: claim.key, outcome: 'claimed' } });
      continue;
    }
    const holder = keyHolderOf(definition, holderRun);
    if (!holder.terminal) changeOf(claim).waiters.add(claim.runId);
    answers.push({ claim, input: { kind: 'claim', key: claim.key, outcome: 'held', holder } });
  }
  for (const { claim, holder, waiters } of changed.values()) {
    await query(
      `update run_keys set
         claimed_at = case when run_id = $4::uuid then claimed_at else now() end,
         run_id = $4::uuid,
         waiters = array(select distinct w from unnest(waiters || $5::uuid[]) as w where w <> $4::uuid)
       where workflow_type = $1 and user_id = $2 and key = $3`,
      [claim.workflowType, claim.userId, claim.key, holder, [...waiters]],
    );
  }
  return answers;
}

/** Holders that ended in this transaction give up their waiters: a timer, due now, tells each one. */
export async function releaseWaiters(
  query: TransactionQuery,
  ended: readonly RunRecord[],
  registry: SagaRegistry,
  now: Date,
): Promise<TimerOperation[]> {
  const runIds = ended.map((run) => run.id).sort();
  const rows = (await query(`select workflow_type, user_id, key, run_id, waiters from run_keys where run_id = any($1::uuid[]) order by workflow_type, user_id, key for update`, [
    runIds,
  ])) as KeyRow[];
  const waited = rows.filter((row) => row.waiters.length > 0);
  if (waited.length === 0) return [];
  await query(`update run_keys set waiters = '{}' where run_id = any($1::uuid[]) and cardinality(waiters) > 0`, [runIds]);
  const runs = new Map(ended.map((run) => [run.id, run]));
  return waited.flatMap((row) => {
    const run = runs.get(row.run_id);
    const definition = run === undefined ? undefined : registry.get(run.type);
    if (run === undefined || definition === undefined) return [];
    const payload = keyHolderEndedPayload(row.key, keyHolderOf(definition, run));
    return row.waiters.map((waiter): TimerOperation => ({ op: 'set', runId: waiter, name: `${KEY_HOLDER_ENDED_TIMER_PREFIX}${row.key}`, fireAt: now, payload }));
  });
}

/** Runs by id: this batch's (their latest state) first, the rest as committed. */
async function loadRuns(query: TransactionQuery, ids: readonly string[], batchRuns: ReadonlyMap<string, RunRecord>): Promise<Map<string, RunRecord>> {
  const runs = new Map<string, RunRecord>();
  const missing: string[] = [];
  for (const id of ids) {
    const run = batchRuns.get(id);
    if (run === undefined) missing.push(id);
    else runs.set(id, run);
  }
  if (missing.length > 0) {
    const rows = (await query(`select ${RUN_COLUMNS} from workflow_runs where id = any($1::uuid[])`, [missing])) as RunRow[];
    for (const row of rows) runs.set(row.id, toRunRecord(row));
  }
  return runs;
}
