import { createEnvelope, type Envelope, type MessageData, RunStateChanged, RunStateChangedV2, runIdFor } from '@openpaw/contracts';
import { openDatabase } from '@openpaw/persistence';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { replayRun } from '../replay.js';
import { SagaRegistry } from '../registry.js';
import { twoStepDefinition, Worked } from '../testing/two-step-definition.js';
import { coordinatorEntities } from './entities.js';
import { coordinatorMigrations } from './migrations.js';
import { loadRunWithLogs } from './run-queries.js';
import { type PendingInput, SagaStore } from './saga-store.js';
import { sagaStoreCounters } from './store-counters.js';

describe('SagaStore on PostgreSQL', () => {
  let dataSource: DataSource;
  let store: SagaStore;

  beforeAll(async () => {
    dataSource = await openDatabase({
      url: await freshDatabase('saga_store'),
      schema: 'coordinator',
      entities: coordinatorEntities,
      migrations: coordinatorMigrations,
    });
    store = new SagaStore(dataSource, new SagaRegistry([twoStepDefinition]));
  });

  afterAll(async () => {
    await store.close();
    await dataSource.destroy();
  });

  const runIdOf = (key: string): string => runIdFor(twoStepDefinition.type, key);

  const start = (key: string, messageId = `start-${key}`): PendingInput => ({
    kind: 'start',
    meta: { messageId, runId: runIdOf(key) },
    request: { workflowType: twoStepDefinition.type, idempotencyKey: key, userId: 'u1', input: { n: 1 } },
  });

  const worked = (key: string, messageId = `worked-${key}`): PendingInput => ({
    kind: 'input',
    meta: { messageId, runId: runIdOf(key) },
    input: { kind: 'event', envelope: createEnvelope(Worked, { n: 1, ok: true }, { id: messageId, source: '/test', correlationId: runIdOf(key) }) },
  });

  const approve = (key: string): PendingInput => ({
    kind: 'input',
    meta: { messageId: `approve-${key}`, runId: runIdOf(key) },
    input: { kind: 'human', userId: 'u1', inputType: 'approve', payload: {} },
    requesterId: 'u1',
  });

  it('applies a batch for many runs in one transaction and dedups by message id', async () => {
    const first = await store.applyBatch([start('a'), start('b'), start('a', 'start-a')]);
    expect(first.results.map((r) => r.status)).toEqual(['applied', 'applied', 'duplicate']);
    expect(first.outbox.map((o) => o.envelope.type).sort()).toEqual([
      'openpaw.cmd.unit.Work.v1',
      'openpaw.cmd.unit.Work.v1',
      'openpaw.evt.workflow.RunStateChanged.v2',
      'openpaw.evt.workflow.RunStateChanged.v2',
    ]);
    expect((await store.applyBatch([start('a')])).results.map((r) => r.status)).toEqual(['duplicate']);
    const [{ count }] = await dataSource.query<[{ count: number }]>(`select count(*)::int as count from outbox`);
    expect(count).toBe(4);
    const [{ timers }] = await dataSource.query<[{ timers: number }]>(`select count(*)::int as timers from timers`);
    expect(timers).toBe(2);
  });

  it('runs a whole saga, deletes published outbox rows in the next write, and replays to the same states', async () => {
    const started = await store.applyBatch([start('c')]);
    store.notePublished(started.outbox.map((o) => o.msgId));
    await store.applyBatch([worked('c'), worked('c', 'worked-c-redelivered')]);
    const left = await dataSource.query<unknown[]>(`select msg_id from outbox where msg_id = any($1::text[])`, [started.outbox.map((o) => o.msgId)]);
    expect(left).toEqual([]);
    await store.applyBatch([approve('c')]);
    const loaded = await loadRunWithLogs(dataSource, runIdOf('c'));
    if (loaded === undefined) throw new Error('run missing');
    expect(loaded.run.state).toBe('DONE');
    expect(loaded.logs.map((l) => `${l.stepName}:${l.stateAfter}`)).toEqual([
      'run_started:NEW',
      'policy_applied:NEW',
      'start:WORKING',
      'openpaw.evt.unit.Worked.v1:REVIEW',
      'transition_refused:REVIEW',
      'human:approve:DONE',
    ]);
    expect(replayRun(twoStepDefinition, loaded.run, loaded.logs)).toMatchObject({ ok: true, finalState: 'DONE' });
    // The run's step timer went when it left WORKING.
    const timers = await dataSource.query<unknown[]>(`select name from timers where run_id = $1`, [runIdOf('c')]);
    expect(timers).toEqual([]);
  });

  it('rolls everything back when the transaction fails', async () => {
    const broken: PendingInput = { ...start('d'), meta: { messageId: 'start-d', runId: 'not-a-uuid' } };
    await expect(store.applyBatch([start('e'), broken])).rejects.toThrow();
    const rows = await dataSource.query<[{ count: number }]>(`select count(*)::int as count from inbox where message_id = 'start-e'`);
    expect(rows[0].count).toBe(0);
    expect(await loadRunWithLogs(dataSource, runIdOf('e'))).toBeUndefined();
  });

  it('serialises concurrent batches touching the same run', async () => {
    await store.applyBatch([start('f')]);
    const results = await Promise.all([store.applyBatch([worked('f', 'x1')]), store.applyBatch([worked('f', 'x2')])]);
    const statuses = results.flatMap((r) => r.results.map((x) => x.status)).sort();
    // The second arrives in REVIEW, where the definition asks for a transition the table refuses.
    expect(statuses).toEqual(['applied', 'refused']);
  });

  it('publishes one change per run per batch, carrying its transitions in order and the view after the last', async () => {
    const batch = await store.applyBatch([start('g'), worked('g'), start('h')]);
    const changes = batch.outbox.filter((o) => o.envelope.type === RunStateChangedV2.subject).map((o) => o.envelope as Envelope<MessageData<typeof RunStateChangedV2>>);
    expect(changes.map((c) => c.data.runId).sort()).toEqual([runIdOf('g'), runIdOf('h')].sort());
    const g = changes.find((c) => c.data.runId === runIdOf('g'));
    expect(g?.data.changes.map((c) => `${c.stateBefore}->${c.stateAfter}@${c.version}`)).toEqual(['null->WORKING@2', 'WORKING->REVIEW@3']);
    expect(g?.data).toMatchObject({ stateBefore: 'WORKING', stateAfter: 'REVIEW', version: 3, terminal: false });
    // Engine-built, not parsed on the way out: what the consumers parse on the way in must accept it.
    for (const change of changes) expect(RunStateChangedV2.schema.safeParse(change.data).success).toBe(true);
    expect(batch.outbox.filter((o) => o.envelope.type === RunStateChanged.subject)).toEqual([]);
  });

  it('also publishes each transition as a v1 during the deprecation window', async () => {
    const withV1 = new SagaStore(dataSource, new SagaRegistry([twoStepDefinition]), undefined, { publishV1: true });
    const batch = await withV1.applyBatch([start('i'), worked('i')]).finally(() => withV1.close());
    const types = batch.outbox.filter((o) => o.envelope.type.startsWith('openpaw.evt.workflow.')).map((o) => `${o.envelope.type}:${(o.envelope.data as { version: number }).version}`);
    expect(types).toEqual([`${RunStateChanged.subject}:2`, `${RunStateChanged.subject}:3`, `${RunStateChangedV2.subject}:3`]);
  });

  describe('batches decided from the runs it committed (one round trip)', () => {
    const stateOf = async (key: string): Promise<{ state: string; version: number }> => {
      const [row] = await dataSource.query<[{ state: string; version: number }]>(`select state, version from workflow_runs where id = $1`, [runIdOf(key)]);
      return row;
    };

    it('decides the next input of a run it knows from memory and commits it guarded', async () => {
      await store.applyBatch([start('k')]);
      const before = { ...sagaStoreCounters };
      const result = await store.applyBatch([worked('k')]);
      expect(result.results.map((r) => r.status)).toEqual(['applied']);
      expect(sagaStoreCounters.decidedFromMemory - before.decidedFromMemory).toBe(1);
      expect(sagaStoreCounters.staleDecisions - before.staleDecisions).toBe(0);
      expect(await stateOf('k')).toEqual({ state: 'REVIEW', version: 3 });
      const inbox = await dataSource.query<unknown[]>(`select 1 from inbox where message_id = 'worked-k'`);
      expect(inbox).toHaveLength(1);
      const loaded = await loadRunWithLogs(dataSource, runIdOf('k'));
      expect(loaded?.logs.map((l) => `${l.stateBefore}->${l.stateAfter}`).at(-1)).toBe('WORKING->REVIEW');
    });

    // 800: a small table, which the planner of a generic plan (ADR 0034) would rather scan and hash-join —
    // and on a busy coordinator such a table is mostly dead rows, so each batch's scan read them all
    // (1.5–2.5 ms a batch in the hit-path bench's PostgreSQL); 5,000: one a scan costs more than a probe of.
    it.each([800, 5000])("probes the runs' and timers' indexes whatever rows the tables hold (never a scan per batch): %i rows", async (fillers) => {
      type TableStats = Record<'workflow_runs' | 'timers', { seq: number; updated: number; deleted: number }>;
      const stats = async (): Promise<TableStats> => {
        await dataSource.query('select pg_stat_clear_snapshot()');
        const rows = await dataSource.query<Array<{ relname: keyof TableStats; seq: string; updated: string; deleted: string }>>(
          `select relname, seq_scan as seq, n_tup_upd as updated, n_tup_del as deleted from pg_stat_user_tables where relname in ('workflow_runs', 'timers')`,
        );
        return Object.fromEntries(rows.map((r) => [r.relname, { seq: Number(r.seq), updated: Number(r.updated), deleted: Number(r.deleted) }])) as TableStats;
      };
      // Enough finished runs and pending timers that scanning costs the planner more than probing;
      // written on one connection that then reports its statistics at once.
      const setup = dataSource.createQueryRunner();
      try {
        await setup.query(
          `insert into workflow_runs (id, type, state, attempt_no, idempotency_key, user_id, data, version, created_at, updated_at)
           select gen_random_uuid(), 'filler', 'DONE', 1, 'filler-' || $1 || '-' || g, 'u-filler', jsonb_build_object('view', repeat('v', 400)), 1, now(), now()
           from generate_series(1, $1::int) g`,
          [fillers],
        );
        await setup.query(`insert into timers (run_id, name, fire_at, payload) select id, 'step', now() + interval '1 hour', 'null'::jsonb from workflow_runs where type = 'filler'`);
        await setup.query('analyze workflow_runs');
        await setup.query('analyze timers');
        await setup.query('select pg_stat_force_next_flush()');
      } finally {
        await setup.release();
      }
      const before = await stats();
      const own = new SagaStore(dataSource, new SagaRegistry([twoStepDefinition]));
      const decided = sagaStoreCounters.decidedFromMemory;
      try {
        await own.applyBatch([start(`big-${fillers}`)]);
        // Updates the run (WORKING → REVIEW) and clears its step timer, both joined from the batch's JSON.
        expect((await own.applyBatch([worked(`big-${fillers}`)])).results.map((r) => r.status)).toEqual(['applied']);
      } finally {
        // Its connections close, and their backends report their statistics as they exit.
        await own.close();
        await dataSource.query(`delete from timers where run_id in (select id from workflow_runs where type = 'filler')`);
        await dataSource.query(`delete from workflow_runs where type = 'filler'`);
      }
      expect(sagaStoreCounters.decidedFromMemory - decided).toBe(2);
      let after = await stats();
      for (let waited = 0; waited < 5_000 && (after.workflow_runs.updated === before.workflow_runs.updated || after.timers.deleted === before.timers.deleted); waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        after = await stats();
      }
      expect(after.workflow_runs.updated).toBeGreaterThan(before.workflow_runs.updated);
      expect(after.timers.deleted).toBeGreaterThan(before.timers.deleted);
      expect({ runs: after.workflow_runs.seq, timers: after.timers.seq }).toEqual({ runs: before.workflow_runs.seq, timers: before.timers.seq });
    });

    it('plans its statements once per connection, not anew for each batch', async () => {
      const own = new SagaStore(dataSource, new SagaRegistry([twoStepDefinition]));
      try {
        // One batch at a time: every batch takes the one idle connection of the store's pool.
        for (const key of ['plan-1', 'plan-2', 'plan-3', 'plan-4', 'plan-5', 'plan-6', 'plan-7', 'plan-8']) {
          await own.applyBatch([start(key)]);
          expect((await own.applyBatch([worked(key)])).results.map((r) => r.status)).toEqual(['applied']);
        }
        // The store's connections are its own (not in its types): ask the one connection what it planned.
        const pool = Reflect.get(own, 'pipelined') as { query(sql: string): Promise<{ rows: Array<{ generic: string; custom: string }> }> };
        const { rows } = await pool.query(`select sum(generic_plans) as generic, sum(custom_plans) as custom from pg_prepared_statements where name like 'saga_store%'`);
        // Left to choose, PostgreSQL plans a statement's first five uses for their values (here: 5 custom,
        // 11 generic), and every use after them while such a plan looks cheaper (the hit-path bench's guarded write).
        expect({ generic: Number(rows[0]?.generic), custom: Number(rows[0]?.custom) }).toEqual({ generic: 16, custom: 0 });
      } finally {
        await own.close();
      }
    });

    it('decides again under lock when another replica moved the run meanwhile', async () => {
      await store.applyBatch([start('m')]); // this store knows m at WORKING, version 2
      const replica = new SagaStore(dataSource, new SagaRegistry([twoStepDefinition]));
      try {
        expect((await replica.applyBatch([worked('m')])).results.map((r) => r.status)).toEqual(['applied']); // REVIEW, version 3
      } finally {
        await replica.close();
      }
      const before = { ...sagaStoreCounters };
      // From memory (WORKING) this would be applied again; under lock (REVIEW) the table refuses it.
      const result = await store.applyBatch([worked('m', 'worked-m-again')]);
      expect(sagaStoreCounters.staleDecisions - before.staleDecisions).toBe(1);
      expect(sagaStoreCounters.decidedFromMemory - before.decidedFromMemory).toBe(0);
      expect(result.results.map((r) => r.status)).toEqual(['refused']);
      expect(await stateOf('m')).toEqual({ state: 'REVIEW', version: 3 });
      const reviews = await dataSource.query<unknown[]>(`select 1 from workflow_step_logs where workflow_run_id = $1 and state_before = 'WORKING' and state_after = 'REVIEW'`, [runIdOf('m')]);
      expect(reviews).toHaveLength(1);
    });

    it('finds an input already in the inbox a duplicate, though memory says it would apply', async () => {
      await store.applyBatch([start('p'), worked('p')]);
      await dataSource.query(`insert into inbox (message_id) values ('approve-p')`);
      const before = { ...sagaStoreCounters };
      const result = await store.applyBatch([approve('p')]);
      expect(sagaStoreCounters.staleDecisions - before.staleDecisions).toBe(1);
      expect(result.results.map((r) => r.status)).toEqual(['duplicate']);
      expect(result.outbox).toEqual([]);
      expect(await stateOf('p')).toEqual({ state: 'REVIEW', version: 3 });
    });
  });
});
