import type { PoolClient } from 'pg';
import type { DataSource } from 'typeorm';
import { type Applied, applyInput, applyStart, coalesceRunChanges, type RunChangeOptions, type StartRequest, unknownRunRefusal } from '../apply/index.js';
import type { SagaInput } from '../definition.js';
import type { InputMeta, OutboxRecord, RunRecord, StepLogRecord, TimerOperation } from '../records.js';
import type { SagaRegistry } from '../registry.js';
import { BatchWrites } from './batch-writes.js';
import { claimKeys, releaseWaiters } from './key-claim-store.js';
import { sagaStoreCounters } from './store-counters.js';
import { type RunRow, toRunRecord, type TransactionQuery } from './run-rows.js';

/** One input waiting to be applied. Its `meta.messageId` is the inbox dedup key. */
export type PendingInput =
  | { readonly kind: 'start'; readonly meta: InputMeta; readonly request: StartRequest }
  | {
      readonly kind: 'input';
      readonly meta: InputMeta;
      readonly input: SagaInput;
      /** Who to answer with `InputRefused` when the run does not exist (cancel/human inputs). */
      readonly requesterId?: string;
      /** Fired timer to consume in the same transaction (run_id, name, fire_at). */
      readonly firedTimer?: { readonly name: string; readonly fireAt: Date };
    };

export type InputResult =
  | { readonly status: 'duplicate' }
  | { readonly status: 'unknown_run' }
  | { readonly status: 'applied' | 'ignored' | 'refused'; readonly applied: Applied };

export interface BatchResult {
  readonly results: readonly InputResult[];
  /** Committed outbox rows, for the relay to publish right away. */
  readonly outbox: readonly OutboxRecord[];
  /** Claim answers applied in this batch (inputs of the engine's, not of the batch): their transitions count too. */
  readonly claimAnswers?: readonly Applied[];
}

/**
 * Applies batches of inputs atomically: inbox dedup, run locks, state changes, step logs, outbox
 * and timers commit together or not at all, in a fixed, small number of round trips per batch
 * (round trips, not rows, decide throughput here).
 */
export class SagaStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly registry: SagaRegistry,
    private readonly clock: () => Date = () => new Date(),
    /** How a batch publishes its runs' changes: one `RunStateChanged` v2 per run, and v1s only in the deprecation window (ADR 0024). */
    private readonly runChanges: RunChangeOptions = { publishV1: false },
  ) {}

  /**
   * Outbox rows the relay has published, deleted by the next batch's write (no transaction of
   * their own on the hot path; the relay flushes them itself when the coordinator is idle).
   */
  private readonly publishedOutbox: string[] = [];

  notePublished(msgIds: readonly string[]): void {
    for (const id of msgIds) this.publishedOutbox.push(id);
  }

  /** Takes the published ids not yet deleted (for an idle flush). */
  takePublished(): string[] {
    return this.publishedOutbox.splice(0, this.publishedOutbox.length);
  }

  async applyBatch(inputs: readonly PendingInput[]): Promise<BatchResult> {
    const runner = this.dataSource.createQueryRunner();
    // The hot path talks to the pg client TypeORM holds for this runner: fewer layers per round trip.
    const client = (await runner.connect()) as PoolClient;
    const published = this.takePublished();
    let open = false;
    try {
      await client.query('begin');
      open = true;
      const result = await this.applyInTransaction(client, inputs, published);
      await client.query('commit');
      open = false;
      sagaStoreCounters.commits += 1;
      sagaStoreCounters.inputs += inputs.length;
      return result;
    } catch (error) {
      this.notePublished(published);
      if (open) await client.query('rollback');
      throw error;
    } finally {
      await runner.release();
    }
  }

  private async applyInTransaction(client: PoolClient, inputs: readonly PendingInput[], published: readonly string[]): Promise<BatchResult> {
    // Named statements: pg prepares each once per connection, so PostgreSQL plans them once, not per batch.
    const query: TransactionQuery = async (sql, params) => (await client.query({ name: statementName(sql), text: sql, values: params })).rows as unknown;
    const runner = { query };
    const now = this.clock();
    const results: InputResult[] = new Array<InputResult>(inputs.length).fill({ status: 'duplicate' });

    // Fired timers are consumed first: only those still due and unchanged are applied (another
    // replica, or a reschedule, may have taken the rest).
    const timerInputs = inputs.flatMap((p, i) => (p.kind === 'input' && p.firedTimer !== undefined ? [{ p, i }] : []));
    const liveTimers = new Set<string>();
    if (timerInputs.length > 0) {
      const deleted = (await runner.query(
        `delete from timers t using unnest($1::uuid[], $2::text[], $3::timestamptz[]) as f(run_id, name, fire_at)
         where t.run_id = f.run_id and t.name = f.name and t.fire_at = f.fire_at returning t.run_id, t.name`,
        [
          timerInputs.map(({ p }) => p.meta.runId),
          timerInputs.map(({ p }) => (p.kind === 'input' ? (p.firedTimer?.name ?? '') : '')),
          timerInputs.map(({ p }) => (p.kind === 'input' ? (p.firedTimer?.fireAt ?? now) : now)),
        ],
      )) as Array<{ run_id: string; name: string }>;
      for (const row of deleted) liveTimers.add(`${row.run_id}\u0000${row.name}`);
    }

    const candidates: number[] = [];
    const seen = new Set<string>();
    inputs.forEach((p, i) => {
      if (seen.has(p.meta.messageId)) return;
      if (p.kind === 'input' && p.firedTimer !== undefined && !liveTimers.has(`${p.meta.runId}\u0000${p.firedTimer.name}`)) return;
      seen.add(p.meta.messageId);
      candidates.push(i);
    });
    if (candidates.length === 0) {
      this.notePublished(published);
      return { results, outbox: [] };
    }

    // One round trip: record the inputs in the inbox and lock their runs (in id order: no deadlocks).
    const messageIds = candidates.map((i) => inputs[i]?.meta.messageId ?? '').sort();
    const candidateRunIds = [...new Set(candidates.map((i) => inputs[i]?.meta.runId ?? ''))].sort();
    const [claimed] = (await runner.query(
      `with fresh as (insert into inbox (message_id) select unnest($1::text[]) on conflict do nothing returning message_id)
       select coalesce((select array_agg(message_id) from fresh), '{}') as fresh,
              coalesce((select json_agg(r) from (
                select id, type, state, attempt_no, idempotency_key, user_id, parent_run_id, data, version, created_at, updated_at
                from workflow_runs where id = any($2::uuid[]) order by id for update) r), '[]') as runs`,
      [messageIds, candidateRunIds],
    )) as [{ fresh: string[]; runs: RunRow[] }];
    const fresh = new Set(claimed.fresh);
    const toApply = candidates.filter((i) => fresh.has(inputs[i]?.meta.messageId ?? ''));
    if (toApply.length === 0 && published.length === 0) return { results, outbox: [] };
    const batch = new BatchWrites(new Map<string, RunRecord>(claimed.runs.map((row) => [row.id, toRunRecord(row)])), this.registry);
    for (const i of toApply) {
      const pending = inputs[i];
      if (pending === undefined) continue;
      const result = this.applyOne(pending, batch.runs.get(pending.meta.runId), now);
      results[i] = result;
      if (result.status === 'unknown_run' || result.status === 'duplicate') {
        if (result.status === 'unknown_run' && pending.kind === 'input' && pending.requesterId !== undefined) {
          batch.outbox.push(unknownRunRefusal(pending.meta.runId, pending.input, pending.meta, pending.requesterId, now));
        }
        continue;
      }
      batch.absorb(result.applied);
    }
    await this.settleKeyClaims(query, batch, now);

    // One change per run per batch: the run's transitions of this transaction travel together.
    const outbox = coalesceRunChanges(batch.outbox, this.runChanges);
    await this.write(runner, published, batch.changedRuns(), batch.logs, outbox, batch.timers);
    return { results, outbox, claimAnswers: batch.claimAnswers };
  }

  /**
   * Key claims are answered here, in the transaction of the decisions that asked (an answer may claim
   * again, e.g. after a holder gave its key up: a few rounds at most); then the holders that ended
   * tell their waiters.
   */
  private async settleKeyClaims(query: TransactionQuery, batch: BatchWrites, now: Date): Promise<void> {
    for (let round = 0, claims = batch.takeClaims(); claims.length > 0; round += 1, claims = batch.takeClaims()) {
      if (round === MAX_CLAIM_ROUNDS) throw new Error(`key claims still asked after ${MAX_CLAIM_ROUNDS} rounds in one batch: a definition claims in a loop`);
      for (const { claim, input } of await claimKeys(query, claims, this.registry, batch.runs)) {
        const run = batch.runs.get(claim.runId);
        const definition = run === undefined ? undefined : this.registry.get(run.type);
        if (run === undefined || definition === undefined) continue;
        const meta: InputMeta = { ...claim.meta, messageId: `${claim.meta.messageId}:claim:${claim.key}`, runId: run.id };
        const answered = applyInput(definition, run, input, meta, now);
        batch.claimAnswers.push(answered);
        batch.absorb(answered);
      }
    }
    if (batch.endedHolders.size > 0) batch.timers.push(...(await releaseWaiters(query, [...batch.endedHolders.values()], this.registry, now)));
  }

  private applyOne(pending: PendingInput, run: RunRecord | undefined, now: Date): InputResult {
    if (pending.kind === 'start') {
      const definition = this.registry.get(pending.request.workflowType);
      if (definition === undefined) return { status: 'unknown_run' };
      if (run !== undefined && run.type !== definition.type) return { status: 'unknown_run' };
      const applied = applyStart(definition, run, pending.meta.runId, pending.request, pending.meta, now);
      return { status: applied.outcome, applied };
    }
    if (run === undefined) return { status: 'unknown_run' };
    const definition = this.registry.get(run.type);
    if (definition === undefined) return { status: 'unknown_run' };
    if (pending.input.kind === 'event' && !this.registry.consumes(run.type, pending.input.envelope.type)) {
      return { status: 'unknown_run' };
    }
    const applied = applyInput(definition, run, pending.input, pending.meta, now);
    return { status: applied.outcome, applied };
  }

  private async write(
    runner: { query(sql: string, params: unknown[]): Promise<unknown> },
    published: readonly string[],
    runs: readonly RunRecord[],
    logs: readonly StepLogRecord[],
    outbox: readonly OutboxRecord[],
    timerOps: readonly TimerOperation[],
  ): Promise<void> {
    if (runs.length === 0 && logs.length === 0 && outbox.length === 0 && timerOps.length === 0 && published.length === 0) return;
    const { sets, clears } = foldTimerOperations(timerOps);
    await runner.query(
      `with
       runs as (
         insert into workflow_runs (id, type, state, attempt_no, idempotency_key, user_id, parent_run_id, data, version, created_at, updated_at)
         select r.id, r.type, r.state, r.attempt_no, r.key, r.user_id, r.parent, r.data::jsonb, r.version, r.created_at, r.updated_at
         from unnest($1::uuid[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::uuid[], $8::text[], $9::int[], $10::timestamptz[], $11::timestamptz[])
           as r(id, type, state, attempt_no, key, user_id, parent, data, version, created_at, updated_at)
         on conflict (id) do update set state = excluded.state, attempt_no = excluded.attempt_no, data = excluded.data,
           version = excluded.version, updated_at = excluded.updated_at
         returning 1
       ),
       logs as (
         insert into workflow_step_logs (workflow_run_id, workflow_type, attempt_no, step_name, state_before, state_after, payload, occurred_at)
         select l.run_id, l.type, l.attempt_no, l.step, l.before, l.after, l.payload::jsonb, l.at
         from unnest($12::uuid[], $13::text[], $14::int[], $15::text[], $16::text[], $17::text[], $18::text[], $19::timestamptz[])
           with ordinality as l(run_id, type, attempt_no, step, before, after, payload, at, ord)
         order by l.ord
         returning 1
       ),
       out as (
         insert into outbox (msg_id, subject, envelope)
         select o.msg_id, o.subject, o.envelope::jsonb from unnest($20::text[], $21::text[], $22::text[]) as o(msg_id, subject, envelope)
         on conflict (msg_id) do nothing
         returning 1
       ),
       timer_sets as (
         select * from unnest($23::uuid[], $24::text[], $25::timestamptz[], $26::text[]) as s(run_id, name, fire_at, payload)
       ),
       timers_cleared as (
         delete from timers t using unnest($27::uuid[], $28::text[], $29::bool[]) as c(run_id, prefix, exact)
         where t.run_id = c.run_id and (case when c.exact then t.name = c.prefix else starts_with(t.name, c.prefix) end)
           and not exists (select 1 from timer_sets s where s.run_id = t.run_id and s.name = t.name)
         returning 1
       ),
       published as (
         delete from outbox where msg_id = any($30::text[]) returning 1
       ),
       timers_set as (
         insert into timers (run_id, name, fire_at, payload)
         select s.run_id, s.name, s.fire_at, s.payload::jsonb from timer_sets s
         on conflict (run_id, name) do update set fire_at = excluded.fire_at, payload = excluded.payload
         returning 1
       )
       select (select count(*) from runs) as runs, (select count(*) from logs) as logs, (select count(*) from out) as outbox,
              (select count(*) from timers_cleared) as cleared, (select count(*) from timers_set) as timers,
              (select count(*) from published) as published`,
      [
        runs.map((r) => r.id),
        runs.map((r) => r.type),
        runs.map((r) => r.state),
        runs.map((r) => r.attemptNo),
        runs.map((r) => r.idempotencyKey),
        runs.map((r) => r.userId),
        runs.map((r) => r.parentRunId),
        runs.map((r) => JSON.stringify(r.data ?? null)),
        runs.map((r) => r.version),
        runs.map((r) => r.createdAt),
        runs.map((r) => r.updatedAt),
        logs.map((l) => l.workflowRunId),
        logs.map((l) => l.workflowType),
        logs.map((l) => l.attemptNo),
        logs.map((l) => l.stepName),
        logs.map((l) => l.stateBefore),
        logs.map((l) => l.stateAfter),
        logs.map((l) => JSON.stringify(l.payload)),
        logs.map((l) => l.occurredAt),
        outbox.map((o) => o.msgId),
        outbox.map((o) => o.envelope.type),
        outbox.map((o) => JSON.stringify(o.envelope)),
        sets.map((s) => s.runId),
        sets.map((s) => s.name),
        sets.map((s) => s.fireAt),
        sets.map((s) => JSON.stringify(s.payload)),
        clears.map((c) => c.runId),
        clears.map((c) => c.prefix),
        clears.map((c) => c.exact),
        published,
      ],
    );
  }
}

/** Rounds of claim answers one batch applies before it gives up (a definition that claims on every answer). */
const MAX_CLAIM_ROUNDS = 4;

const statementNames = new Map<string, string>();

function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `saga_store_${statementNames.size + 1}`;
    statementNames.set(sql, name);
  }
  return name;
}

/**
 * Folds a batch's timer operations into "clear these prefixes" and "set these timers" with
 * sequential semantics: a clear cancels earlier sets in the same batch; a later set survives.
 */
export function foldTimerOperations(ops: readonly TimerOperation[]): {
  sets: Array<Extract<TimerOperation, { op: 'set' }>>;
  clears: Array<{ runId: string; prefix: string; exact: boolean }>;
} {
  const sets = new Map<string, Extract<TimerOperation, { op: 'set' }>>();
  const clears: Array<{ runId: string; prefix: string; exact: boolean }> = [];
  for (const op of ops) {
    switch (op.op) {
      case 'set':
        sets.set(`${op.runId}\u0000${op.name}`, op);
        break;
      case 'clear':
      case 'clearPrefix': {
        const exact = op.op === 'clear';
        const prefix = exact ? op.name : op.prefix;
        for (const [key, set] of sets) {
          if (set.runId === op.runId && (exact ? set.name === prefix : set.name.startsWith(prefix))) sets.delete(key);
        }
        clears.push({ runId: op.runId, prefix, exact });
        break;
      }
    }
  }
  return { sets: [...sets.values()], clears };
}
