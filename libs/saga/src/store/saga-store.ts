import type { Pool, PoolClient } from 'pg';
import type { DataSource } from 'typeorm';
import { type Applied, applyInput, applyStart, coalesceRunChanges, type RunChangeOptions, type StartRequest, unknownRunRefusal } from '../apply/index.js';
import type { SagaInput } from '../definition.js';
import type { InputMeta, KeyClaim, OutboxRecord, RunRecord, StepLogRecord, TimerOperation } from '../records.js';
import type { SagaRegistry } from '../registry.js';
import { isTerminal } from '../transition-table.js';
import { BatchWrites } from './batch-writes.js';
import { KnownRuns } from './known-runs.js';
import { BATCH_GUARD_SQLSTATE } from './migrations.js';
import { claimAnswerMessageId, claimKeys, keyClaimRowKey, releaseWaiters, sortedForInsert } from './key-claim-store.js';
import { fewBatchRows, pipelinedPoolOf, sentTogether, statementNamer } from '@openpaw/persistence';
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
  /** The earliest fire time of the timers this batch set, for the poller to wake by (none set: absent). */
  readonly earliestTimer?: Date;
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

  /** The batches' own connections, pipelined (see `pipelinedPoolOf`); opened on the first batch. */
  private pipelined: Pool | undefined;

  /** Closes the batches' connections (the data source's own are closed with it). */
  async close(): Promise<void> {
    const pool = this.pipelined;
    this.pipelined = undefined;
    await pool?.end();
  }

  /** Runs as this process last committed them: batches on them are decided without reading them first. */
  private readonly known = new KnownRuns();

  /**
   * Applies a batch atomically. When every input is for a run this process knows (it committed the
   * run's last change), the batch is decided from memory and committed in one round trip: one guarded
   * statement, its own transaction, whose guard (inbox and run versions, see
   * `saga_batch_guard`) aborts it if that knowledge was stale. Otherwise, or after such an abort, the
   * locking path: the inputs' runs are read and locked first, then written (two round trips).
   */
  async applyBatch(inputs: readonly PendingInput[]): Promise<BatchResult> {
    this.pipelined ??= pipelinedPoolOf(this.dataSource, { genericPlans: true });
    const client = await this.pipelined.connect();
    const published = this.takePublished();
    let broken: unknown;
    try {
      const now = this.clock();
      const fromMemory = this.decideFromKnownRuns(client, inputs, published, now);
      if (fromMemory !== undefined) {
        const committed = await this.commitGuarded(inputs, fromMemory);
        if (committed !== undefined) return committed;
        sagaStoreCounters.staleDecisions += 1;
      }
      return await this.commit(client, inputs, () => this.applyInTransaction(client, inputs, published, now));
    } catch (error) {
      this.notePublished(published);
      // Outside a transaction (it already ended) a ROLLBACK only warns.
      await client.query('rollback').catch((rollbackFailed: unknown) => (broken = rollbackFailed));
      throw error;
    } finally {
      // A connection that could not roll back is closed, not reused.
      client.release(broken === undefined ? undefined : broken instanceof Error ? broken : true);
    }
  }

  /**
   * A decision made from memory is one guarded statement, which PostgreSQL runs as a transaction of
   * its own (pg sends each statement with its own Sync): all of it or nothing, durable once answered.
   * No `begin` or `commit` travels with it; each would cost PostgreSQL a cycle of its own and this
   * process an answer to read. Undefined when the guard found the view stale (decide again).
   */
  private async commitGuarded(inputs: readonly PendingInput[], decided: Decided): Promise<BatchResult | undefined> {
    try {
      await decided.write();
    } catch (error) {
      if (!isBatchGuardFailure(error)) throw error;
      for (const run of decided.runs) this.known.forget(run.id);
      return undefined;
    } finally {
      sagaStoreCounters.roundTrips += 1;
    }
    this.committed(inputs, decided.runs, true);
    return decided.result;
  }

  private committed(inputs: readonly PendingInput[], runs: readonly RunRecord[], guarded: boolean): void {
    sagaStoreCounters.commits += 1;
    sagaStoreCounters.inputs += inputs.length;
    if (guarded) sagaStoreCounters.decidedFromMemory += 1;
    for (const run of runs) this.known.remember(run, this.isFinished(run));
  }

  /**
   * The locking path, one transaction: `begin` goes out with the first read, and `commit` right behind
   * the write (two round trips). Not waiting for BEGIN is safe: it fails only with its connection, and
   * then every statement behind it fails too. A write PostgreSQL refuses aborts the transaction, and the
   * COMMIT behind it then ends it as a ROLLBACK: the write's error is thrown, nothing is kept.
   */
  private async commit(client: PoolClient, inputs: readonly PendingInput[], decide: () => Promise<Decided>): Promise<BatchResult> {
    const { begun, deciding } = sentTogether(client, () => {
      const begun = client.query('begin');
      begun.catch(() => undefined); // awaited below; this only marks it handled until then
      return { begun, deciding: decide() };
    });
    const { result, runs, write } = await deciding;
    const sent = sentTogether(client, () => sendWithCommit(client, { write }));
    const [wrote, committed] = await Promise.allSettled([sent.writing, sent.committing]);
    sagaStoreCounters.roundTrips += 1;
    await begun;
    if (wrote.status === 'rejected') throw wrote.reason;
    if (committed.status === 'rejected') throw committed.reason;
    if (committed.value.command !== 'COMMIT') throw new Error(`the batch's transaction ended with ${committed.value.command}, not COMMIT`);
    this.committed(inputs, runs, false);
    return result;
  }

  private isFinished(run: RunRecord): boolean {
    const definition = this.registry.get(run.type);
    return definition === undefined || isTerminal(definition, run.state);
  }

  /**
   * The batch decided without reading its runs, its guarded write not yet sent: each input's run as
   * this process last committed it, or, for the `StartRun` of a run it does not know, no run yet (a new
   * run is the common case; one that exists after all fails the guard). Key claims are answered
   * `claimed` (the guarded write inserts the keys: a key held already fails the guard), and a claim
   * holder that ends here must have no waiters (the write locks its keys' rows and checks). Undefined
   * when it must take the locking path: a fired timer (consumed under lock), an input for a run not
   * known here, an input that changes nothing (its run's version would go unchecked), a message twice
   * in the batch, a run started twice or a key claimed twice in it.
   */
  private decideFromKnownRuns(client: PoolClient, inputs: readonly PendingInput[], published: readonly string[], now: Date): Decided | undefined {
    const messageIds = new Set<string>();
    const runs = new Map<string, RunRecord>();
    const expected = new Map<string, number>();
    const started = new Set<string>();
    for (const pending of inputs) {
      if (messageIds.has(pending.meta.messageId)) return undefined;
      messageIds.add(pending.meta.messageId);
      const { runId } = pending.meta;
      if (pending.kind === 'start') {
        // Assumed new: a run this process knows, or one started twice in the batch, is decided under lock.
        if (this.known.get(runId) !== undefined || started.has(runId) || runs.has(runId)) return undefined;
        started.add(runId);
        continue;
      }
      if (pending.firedTimer !== undefined || started.has(runId)) return undefined;
      const known = this.known.get(runId);
      if (known === undefined) return undefined;
      if (!runs.has(known.id)) {
        // A copy: a definition that changed the data it was given would otherwise change what is known.
        runs.set(known.id, { ...known, data: structuredClone(known.data) });
        expected.set(known.id, known.version);
      }
    }
    const batch = new BatchWrites(runs, this.registry);
    const results: InputResult[] = [];
    for (const pending of inputs) {
      const result = this.applyOne(pending, batch.runs.get(pending.meta.runId), now);
      if (result.status !== 'applied' || !result.applied.changed) return undefined;
      results.push(result);
      batch.absorb(result.applied);
    }
    const claims = this.answerClaimsAsClaimed(batch, now);
    if (claims === undefined) return undefined;
    const changed = batch.changedRuns();
    const query = namedStatementsOn(client);
    const outbox = coalesceRunChanges(batch.outbox, this.runChanges);
    const timers = foldTimerOperations(batch.timers);
    const guard: BatchGuard = { messageIds: [...messageIds], expectedVersions: expected, claims, endedHolders: [...batch.endedHolders.keys()].sort() };
    const earliestTimer = earliestOf(timers.sets);
    const result: BatchResult = { results, outbox, claimAnswers: batch.claimAnswers, ...(earliestTimer === undefined ? {} : { earliestTimer }) };
    return { result, runs: changed, write: () => this.write({ query }, published, changed, batch.logs, outbox, timers, guard) };
  }

  /**
   * Answers the batch's key claims `claimed`, as the locking path would for keys no run holds (an
   * answer may claim again: a few rounds at most); the claims, in the one order every transaction
   * inserts keys in, or undefined when a key is claimed twice in the batch (one of them must wait).
   */
  private answerClaimsAsClaimed(batch: BatchWrites, now: Date): KeyClaim[] | undefined {
    const claims: KeyClaim[] = [];
    const keys = new Set<string>();
    for (let round = 0, asked = batch.takeClaims(); asked.length > 0; round += 1, asked = batch.takeClaims()) {
      if (round === MAX_CLAIM_ROUNDS) return undefined;
      for (const claim of asked) {
        const key = keyClaimRowKey(claim);
        const run = batch.runs.get(claim.runId);
        const definition = run === undefined ? undefined : this.registry.get(run.type);
        if (keys.has(key) || run === undefined || definition === undefined) return undefined;
        keys.add(key);
        claims.push(claim);
        const meta: InputMeta = { ...claim.meta, messageId: claimAnswerMessageId(claim), runId: run.id };
        const answered = applyInput(definition, run, { kind: 'claim', key: claim.key, outcome: 'claimed' }, meta, now);
        batch.claimAnswers.push(answered);
        batch.absorb(answered);
      }
    }
    return sortedForInsert(claims);
  }

  /** Reads and locks the batch's runs, then decides it; its write is sent by the caller, with COMMIT behind it. */
  private async applyInTransaction(client: PoolClient, inputs: readonly PendingInput[], published: readonly string[], now: Date): Promise<Decided> {
    // Each read here is waited for: a round trip. The write is sent with COMMIT (counted with it).
    const statements = namedStatementsOn(client);
    const query = countedRoundTrips(statements);
    const runner = { query };
    const writer = { query: statements };
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
      return { result: { results, outbox: [] }, runs: [], write: () => undefined };
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
    if (toApply.length === 0 && published.length === 0) return { result: { results, outbox: [] }, runs: [], write: () => undefined };
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
    const timers = foldTimerOperations(batch.timers);
    const changed = batch.changedRuns();
    const earliestTimer = earliestOf(timers.sets);
    return {
      result: { results, outbox, claimAnswers: batch.claimAnswers, ...(earliestTimer === undefined ? {} : { earliestTimer }) },
      runs: [...batch.runs.values()],
      write: () => this.write(writer, published, changed, batch.logs, outbox, timers),
    };
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
        const meta: InputMeta = { ...claim.meta, messageId: claimAnswerMessageId(claim), runId: run.id };
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

  /** The batch's one write statement, sent now and not awaited; undefined when there is nothing to write. */
  private write(
    runner: { query(sql: string, params: unknown[]): Promise<unknown> },
    published: readonly string[],
    runs: readonly RunRecord[],
    logs: readonly StepLogRecord[],
    outbox: readonly OutboxRecord[],
    { sets, clears }: ReturnType<typeof foldTimerOperations>,
    guard?: BatchGuard,
  ): Promise<unknown> | undefined {
    if (guard === undefined && runs.length === 0 && logs.length === 0 && outbox.length === 0 && sets.length === 0 && clears.length === 0 && published.length === 0) return undefined;
    // Rows travel as one JSON document per table (one JSON.stringify), not as 30 text arrays: pg escapes
    // every element of an array parameter, quote by quote, and the run data, step payloads and envelopes
    // are JSON full of quotes. Each document is read as jsonb: parsed once, its jsonb fields (data,
    // payloads, envelopes) then taken as they are; read as json, each field's text was lexed again into
    // jsonb (the runs' document twice) — 15 % of the statement's CPU in PostgreSQL (a replay of a hit-path
    // bench's statements).
    return runner.query(
      `with
       ${guard === undefined ? UPSERT_LOCKED_RUNS : UPDATE_KNOWN_RUNS},
       logs as (
         insert into workflow_step_logs (workflow_run_id, workflow_type, attempt_no, step_name, state_before, state_after, payload, occurred_at)
         select l.run_id, l.type, l.attempt_no, l.step, l.before, l.after, coalesce(l.payload, 'null'::jsonb), l.at
         from rows from (jsonb_to_recordset($2::jsonb) as (run_id uuid, type text, attempt_no int, step text, before text, after text, payload jsonb, at timestamptz))
           with ordinality as l(run_id, type, attempt_no, step, before, after, payload, at, ord)
         order by l.ord
         returning 1
       ),
       out as (
         insert into outbox (msg_id, subject, envelope)
         select o.msg_id, o.subject, o.envelope from jsonb_to_recordset($3::jsonb) as o(msg_id text, subject text, envelope jsonb)
         on conflict (msg_id) do nothing
         returning 1
       ),
       timer_sets as (
         select s.run_id, s.name, s.fire_at, coalesce(s.payload, 'null'::jsonb) as payload
         from jsonb_to_recordset($4::jsonb) as s(run_id uuid, name text, fire_at timestamptz, payload jsonb)
       ),
       timers_cleared as (
         delete from timers t using ${fewBatchRows('jsonb_to_recordset($5::jsonb) as c(run_id uuid, prefix text, exact bool)', '$5::jsonb')} as c
         where t.run_id = c.run_id and (case when c.exact then t.name = c.prefix else starts_with(t.name, c.prefix) end)
           and not exists (select 1 from timer_sets s where s.run_id = t.run_id and s.name = t.name)
         returning 1
       ),
       published as (
         delete from outbox where msg_id = any($6::text[]) returning 1
       ),
       timers_set as (
         insert into timers (run_id, name, fire_at, payload)
         select s.run_id, s.name, s.fire_at, s.payload from timer_sets s
         on conflict (run_id, name) do update set fire_at = excluded.fire_at, payload = excluded.payload
         returning 1
       )
       select (select count(*) from runs) as runs, (select count(*) from logs) as logs, (select count(*) from out) as outbox,
              (select count(*) from timers_cleared) as cleared, (select count(*) from timers_set) as timers,
              (select count(*) from published) as published${guard === undefined ? '' : GUARD_COLUMN}`,
      [
        JSON.stringify(
          runs.map((r) => ({
            id: r.id,
            type: r.type,
            state: r.state,
            attempt_no: r.attemptNo,
            idempotency_key: r.idempotencyKey,
            user_id: r.userId,
            parent_run_id: r.parentRunId,
            data: r.data ?? null,
            version: r.version,
            created_at: r.createdAt,
            updated_at: r.updatedAt,
            ...(guard === undefined ? {} : { expected_version: guard.expectedVersions.get(r.id) ?? null }),
          })),
        ),
        JSON.stringify(
          logs.map((l) => ({
            run_id: l.workflowRunId,
            type: l.workflowType,
            attempt_no: l.attemptNo,
            step: l.stepName,
            before: l.stateBefore,
            after: l.stateAfter,
            payload: l.payload ?? null,
            at: l.occurredAt,
          })),
        ),
        JSON.stringify(outbox.map((o) => ({ msg_id: o.msgId, subject: o.envelope.type, envelope: o.envelope }))),
        JSON.stringify(sets.map((t) => ({ run_id: t.runId, name: t.name, fire_at: t.fireAt, payload: t.payload ?? null }))),
        JSON.stringify(clears.map((c) => ({ run_id: c.runId, prefix: c.prefix, exact: c.exact }))),
        published,
        ...(guard === undefined
          ? []
          : [
              guard.messageIds,
              guard.messageIds.length,
              runs.length,
              guard.claims.map((c) => c.workflowType),
              guard.claims.map((c) => c.userId),
              guard.claims.map((c) => c.key),
              guard.claims.map((c) => c.runId),
              guard.endedHolders,
            ]),
      ],
    );
  }
}

/** A batch decided (on either path): its runs as they will be once it commits, and its write, not yet sent. */
interface Decided {
  readonly result: BatchResult;
  readonly runs: readonly RunRecord[];
  /** Sends the batch's one write statement; undefined when there is nothing to write. */
  readonly write: () => Promise<unknown> | undefined;
}

/** A batch's write and the COMMIT behind it, both sent. */
interface SentWrite {
  readonly writing: Promise<unknown> | undefined;
  readonly committing: Promise<{ readonly command: string }>;
}

/** Sends the write, then COMMIT right behind it (the caller settles both). */
function sendWithCommit(client: PoolClient, { write }: Pick<Decided, 'write'>): SentWrite {
  const writing = write();
  writing?.catch(() => undefined); // settled by the caller, with the COMMIT
  const committing = client.query('commit');
  committing.catch(() => undefined); // likewise
  return { writing, committing };
}

/**
 * What a batch decided from memory must find to commit: its inputs new to the inbox, its known runs at
 * these versions and the runs it starts not there yet, the keys it claims free, and no run waiting on a
 * key of a holder it ends.
 */
interface BatchGuard {
  readonly messageIds: readonly string[];
  /** The known runs' versions decided from; a changed run not here is one the batch starts. */
  readonly expectedVersions: ReadonlyMap<string, number>;
  /** Keys claimed, in insert order. */
  readonly claims: readonly KeyClaim[];
  /** Claim holders that end in the batch (sorted: their key rows are locked in this order). */
  readonly endedHolders: readonly string[];
}

/** The locking path's runs: locked (or new) rows, written whole. */
const UPSERT_LOCKED_RUNS = `runs as (
         insert into workflow_runs (id, type, state, attempt_no, idempotency_key, user_id, parent_run_id, data, version, created_at, updated_at)
         select r.id, r.type, r.state, r.attempt_no, r.idempotency_key, r.user_id, r.parent_run_id, coalesce(r.data, 'null'::jsonb), r.version, r.created_at, r.updated_at
         from jsonb_to_recordset($1::jsonb) as r(id uuid, type text, state text, attempt_no int, idempotency_key text, user_id text, parent_run_id uuid,
           data jsonb, version int, created_at timestamptz, updated_at timestamptz)
         on conflict (id) do update set state = excluded.state, attempt_no = excluded.attempt_no, data = excluded.data,
           version = excluded.version, updated_at = excluded.updated_at
         returning 1
       )`;

/**
 * A batch decided from memory: each known run is updated only at the version it was decided from (a
 * row another transaction changed meanwhile is re-checked at its new version and skipped), each run it
 * starts is inserted only if no run has its id or idempotency key, its inputs are entered in the inbox,
 * its claimed keys inserted only where free, and the key rows of the holders it ends are locked (a
 * claimant then waits for this commit, and sees the holder ended). The guard column counts them all.
 */
const UPDATE_KNOWN_RUNS = `runs as (
         update workflow_runs w set state = r.state, attempt_no = r.attempt_no, data = coalesce(r.data, 'null'::jsonb), version = r.version, updated_at = r.updated_at
         from ${fewBatchRows('jsonb_to_recordset($1::jsonb) as r(id uuid, state text, attempt_no int, data jsonb, version int, updated_at timestamptz, expected_version int)', '$1::jsonb')} as r
         where w.id = r.id and w.version = r.expected_version
         returning 1
       ),
       started as (
         insert into workflow_runs (id, type, state, attempt_no, idempotency_key, user_id, parent_run_id, data, version, created_at, updated_at)
         select r.id, r.type, r.state, r.attempt_no, r.idempotency_key, r.user_id, r.parent_run_id, coalesce(r.data, 'null'::jsonb), r.version, r.created_at, r.updated_at
         from jsonb_to_recordset($1::jsonb) as r(id uuid, type text, state text, attempt_no int, idempotency_key text, user_id text, parent_run_id uuid,
           data jsonb, version int, created_at timestamptz, updated_at timestamptz, expected_version int)
         where r.expected_version is null
         on conflict do nothing
         returning 1
       ),
       claimed as (
         insert into inbox (message_id) select unnest($7::text[]) on conflict do nothing returning 1
       ),
       keys as (
         insert into run_keys (workflow_type, user_id, key, run_id, claimed_at)
         select k.workflow_type, k.user_id, k.key, k.run_id, now()
         from unnest($10::text[], $11::text[], $12::text[], $13::uuid[]) with ordinality as k(workflow_type, user_id, key, run_id, ord)
         order by k.ord
         on conflict do nothing
         returning 1
       ),
       held as (
         select cardinality(waiters) as waiting from run_keys where run_id = any($14::uuid[]) order by workflow_type, user_id, key for update
       )`;

/** Raises (SQLSTATE OPG01) unless all that `UPDATE_KNOWN_RUNS` counts is as decided: the statement, and the COMMIT behind it, abort. */
const GUARD_COLUMN = `,
              saga_batch_guard((select count(*) from claimed), $8::int, (select count(*) from runs) + (select count(*) from started), $9::int,
                (select count(*) from keys), cardinality($12::text[]), (select count(*) from held where waiting > 0)) as guarded`;

/** Statements on the batch's connection, named: pg prepares each once per connection, so PostgreSQL plans them once, not per batch. */
function namedStatementsOn(client: PoolClient): TransactionQuery {
  return async (sql, params) => (await client.query({ name: statementName(sql), text: sql, values: params })).rows as unknown;
}

/** `query`, each statement counted as a round trip of its own (`sagaStoreCounters.roundTrips`). */
function countedRoundTrips(query: TransactionQuery): TransactionQuery {
  return (sql, params) => {
    sagaStoreCounters.roundTrips += 1;
    return query(sql, params);
  };
}

function isBatchGuardFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === BATCH_GUARD_SQLSTATE;
}

function earliestOf(sets: ReadonlyArray<{ readonly fireAt: Date }>): Date | undefined {
  return sets.reduce<Date | undefined>((earliest, t) => (earliest === undefined || t.fireAt < earliest ? t.fireAt : earliest), undefined);
}

/** Rounds of claim answers one batch applies before it gives up (a definition that claims on every answer). */
const MAX_CLAIM_ROUNDS = 4;

const statementName = statementNamer('saga_store');

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
