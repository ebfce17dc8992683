import { createEnvelope, runIdFor } from '@openpaw/contracts';
import { openDatabase } from '@openpaw/persistence';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { KEY_HOLDER_ENDED_TIMER_PREFIX } from '../key-claims.js';
import { replayRun } from '../replay.js';
import { SagaRegistry } from '../registry.js';
import { claimingDefinition } from '../testing/claiming-definition.js';
import { twoStepDefinition, Worked } from '../testing/two-step-definition.js';
import { coordinatorEntities } from './entities.js';
import { coordinatorMigrations } from './migrations.js';
import { loadRunWithLogs } from './run-queries.js';
import { type PendingInput, SagaStore } from './saga-store.js';
import { sagaStoreCounters } from './store-counters.js';

/** Runs are started under their own idempotency key (`runKey`) and claim `claimKey` after starting. */
describe('idempotency key claims on PostgreSQL', () => {
  let dataSource: DataSource;
  let store: SagaStore;

  beforeAll(async () => {
    dataSource = await openDatabase({ url: await freshDatabase('key_claims'), schema: 'coordinator', entities: coordinatorEntities, migrations: coordinatorMigrations });
    store = new SagaStore(dataSource, new SagaRegistry([twoStepDefinition, claimingDefinition]));
  });

  afterAll(async () => {
    await store.close();
    await dataSource.destroy();
  });

  const runIdOf = (runKey: string): string => runIdFor(claimingDefinition.type, runKey);

  const start = (runKey: string, claimKey: string, userId = 'u1', n = 1, messageId = `start-${runKey}`): PendingInput => ({
    kind: 'start',
    meta: { messageId, runId: runIdOf(runKey) },
    request: { workflowType: claimingDefinition.type, idempotencyKey: runKey, userId, input: { key: claimKey, n } },
  });

  const worked = (runKey: string, ok: boolean, n = 1): PendingInput => ({
    kind: 'input',
    meta: { messageId: `worked-${runKey}-${ok}-${n}`, runId: runIdOf(runKey) },
    input: { kind: 'event', envelope: createEnvelope(Worked, { n, ok }, { id: `worked-${runKey}-${ok}-${n}`, source: '/test', correlationId: runIdOf(runKey) }) },
  });

  const stateOf = async (runKey: string): Promise<string | undefined> => (await loadRunWithLogs(dataSource, runIdOf(runKey)))?.run.state;

  /** Fires the run's due key-holder-ended timers as the timer poller would (consumed in the same transaction). */
  const fireHolderTimers = async (runKey: string): Promise<number> => {
    const timers = await dataSource.query<Array<{ name: string; fire_at: Date; payload: Record<string, unknown> }>>(
      `select name, fire_at, payload from timers where run_id = $1 and starts_with(name, $2) and fire_at <= now()`,
      [runIdOf(runKey), KEY_HOLDER_ENDED_TIMER_PREFIX],
    );
    for (const timer of timers) {
      await store.applyBatch([
        {
          kind: 'input',
          meta: { messageId: `timer:${runIdOf(runKey)}:${timer.name}:${timer.fire_at.getTime()}`, runId: runIdOf(runKey) },
          input: { kind: 'timer', name: timer.name, payload: timer.payload },
          firedTimer: { name: timer.name, fireAt: timer.fire_at },
        },
      ]);
    }
    return timers.length;
  };

  it('given many runs with the same key in concurrent transactions, exactly one claims it and the others wait for it', async () => {
    const runKeys = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'];
    await Promise.all(runKeys.map((runKey) => store.applyBatch([start(runKey, 'same-problem')])));
    const states = await Promise.all(runKeys.map(stateOf));
    expect(states.filter((s) => s === 'WORKING')).toHaveLength(1);
    expect(states.filter((s) => s === 'CLAIMING')).toHaveLength(5);
    const holderKey = runKeys[states.indexOf('WORKING')] ?? '';
    const [row] = await dataSource.query<Array<{ run_id: string; waiters: string[] }>>(`select run_id, waiters from run_keys where key = 'same-problem'`);
    expect(row?.run_id).toBe(runIdOf(holderKey));
    expect([...(row?.waiters ?? [])].sort()).toEqual(runKeys.filter((k) => k !== holderKey).map(runIdOf).sort());

    // The holder ends DONE: every waiter is told by a due timer and answers with its result.
    await store.applyBatch([worked(holderKey, true, 42)]);
    for (const runKey of runKeys.filter((k) => k !== holderKey)) {
      expect(await fireHolderTimers(runKey)).toBe(1);
      const loaded = await loadRunWithLogs(dataSource, runIdOf(runKey));
      expect(loaded?.run.state).toBe('DONE');
      expect(loaded?.run.data).toMatchObject({ result: 42, answeredFrom: runIdOf(holderKey) });
      if (loaded === undefined) throw new Error('run missing');
      expect(replayRun(claimingDefinition, loaded.run, loaded.logs)).toMatchObject({ ok: true, finalState: 'DONE' });
    }
    const [after] = await dataSource.query<Array<{ waiters: string[] }>>(`select waiters from run_keys where key = 'same-problem'`);
    expect(after?.waiters).toEqual([]);
  });

  it('given a holder that ended DONE, a later claimant answers at once, in the transaction of its claim', async () => {
    await store.applyBatch([start('d1', 'done-key', 'u1', 7)]);
    await store.applyBatch([worked('d1', true, 7)]);
    const batch = await store.applyBatch([start('d2', 'done-key')]);
    // The claim's answer is reported beside the batch's inputs (the coordinator counts its transitions too).
    expect(batch.claimAnswers?.map((answer) => answer.transition?.to)).toEqual(['DONE']);
    const loaded = await loadRunWithLogs(dataSource, runIdOf('d2'));
    expect(loaded?.run.state).toBe('DONE');
    expect(loaded?.run.data).toMatchObject({ result: 7, answeredFrom: runIdOf('d1') });
    expect(loaded?.logs.map((l) => `${l.stepName}:${l.stateAfter}`)).toEqual(['run_started:NEW', 'start:CLAIMING', 'key_claim_requested:CLAIMING', 'answered_from_holder:DONE']);
  });

  it('given a holder that FAILED, the next claimant takes the key over; its waiters are told and claim again', async () => {
    await store.applyBatch([start('f1', 'failed-key')]);
    await store.applyBatch([start('f2', 'failed-key')]);
    expect(await stateOf('f2')).toBe('CLAIMING');
    await store.applyBatch([worked('f1', false)]);
    expect(await stateOf('f1')).toBe('FAILED');
    expect(await fireHolderTimers('f2')).toBe(1);
    expect(await stateOf('f2')).toBe('WORKING');
    const [row] = await dataSource.query<Array<{ run_id: string }>>(`select run_id from run_keys where key = 'failed-key'`);
    expect(row?.run_id).toBe(runIdOf('f2'));
    // A run started after the failure, with f2 working, waits for f2.
    await store.applyBatch([start('f3', 'failed-key')]);
    expect(await stateOf('f3')).toBe('CLAIMING');
  });

  it('given a CANCELLED holder, a new claimant takes the key at once', async () => {
    await store.applyBatch([start('x1', 'cancelled-key')]);
    await store.applyBatch([{ kind: 'input', meta: { messageId: 'cancel-x1', runId: runIdOf('x1') }, input: { kind: 'cancel', userId: 'u1' }, requesterId: 'u1' }]);
    await store.applyBatch([start('x2', 'cancelled-key')]);
    expect(await stateOf('x2')).toBe('WORKING');
  });

  it('keeps keys per user: the same key of two users is claimed by both', async () => {
    await Promise.all([store.applyBatch([start('u-a', 'shared-key', 'alice')]), store.applyBatch([start('u-b', 'shared-key', 'bob')])]);
    expect(await stateOf('u-a')).toBe('WORKING');
    expect(await stateOf('u-b')).toBe('WORKING');
  });

  it('given a FAILED run re-attempted, it claims its own key again', async () => {
    await store.applyBatch([start('r1', 'retry-key')]);
    await store.applyBatch([worked('r1', false)]);
    await store.applyBatch([start('r1', 'retry-key', 'u1', 1, 'start-r1-attempt-2')]);
    const loaded = await loadRunWithLogs(dataSource, runIdOf('r1'));
    expect(loaded?.run).toMatchObject({ state: 'WORKING', attemptNo: 2 });
  });

  it('given two runs with the same key in one batch, one claims and the other waits', async () => {
    await store.applyBatch([start('b1', 'batch-key'), start('b2', 'batch-key')]);
    expect([await stateOf('b1'), await stateOf('b2')].sort()).toEqual(['CLAIMING', 'WORKING']);
  });

  describe('decided without reading the runs (one round trip), and under lock when that was wrong', () => {
    const counted = async <T>(act: () => Promise<T>): Promise<{ result: T; fromMemory: number; stale: number }> => {
      const before = { ...sagaStoreCounters };
      const result = await act();
      return { result, fromMemory: sagaStoreCounters.decidedFromMemory - before.decidedFromMemory, stale: sagaStoreCounters.staleDecisions - before.staleDecisions };
    };
    const keyRow = async (claimKey: string): Promise<{ run_id: string; waiters: string[] } | undefined> =>
      (await dataSource.query<Array<{ run_id: string; waiters: string[] }>>(`select run_id, waiters from run_keys where key = $1`, [claimKey]))[0];

    it('given a new run claiming a free key, starts it and claims the key in one guarded write', async () => {
      const { fromMemory, stale } = await counted(() => store.applyBatch([start('g1', 'free-key')]));
      expect({ fromMemory, stale }).toEqual({ fromMemory: 1, stale: 0 });
      expect(await stateOf('g1')).toBe('WORKING');
      expect(await keyRow('free-key')).toEqual({ run_id: runIdOf('g1'), waiters: [] });
      const loaded = await loadRunWithLogs(dataSource, runIdOf('g1'));
      expect(loaded?.logs.map((l) => `${l.stepName}:${l.stateAfter}`)).toEqual(['run_started:NEW', 'start:CLAIMING', 'key_claim_requested:CLAIMING', 'key_claimed:WORKING']);
      if (loaded === undefined) throw new Error('run missing');
      expect(replayRun(claimingDefinition, loaded.run, loaded.logs)).toMatchObject({ ok: true, finalState: 'WORKING' });
    });

    it('given a key another run holds, the guard fails and the claim waits under lock', async () => {
      await store.applyBatch([start('h1', 'held-key')]);
      const { fromMemory, stale } = await counted(() => store.applyBatch([start('h2', 'held-key')]));
      expect({ fromMemory, stale }).toEqual({ fromMemory: 0, stale: 1 });
      expect(await stateOf('h2')).toBe('CLAIMING');
      expect(await keyRow('held-key')).toEqual({ run_id: runIdOf('h1'), waiters: [runIdOf('h2')] });
      // Nothing of the guarded attempt was kept: one start, one claim request, no claimed step.
      const loaded = await loadRunWithLogs(dataSource, runIdOf('h2'));
      expect(loaded?.logs.map((l) => `${l.stepName}:${l.stateAfter}`)).toEqual(['run_started:NEW', 'start:CLAIMING', 'key_claim_requested:CLAIMING', 'waiting_for_holder:CLAIMING']);
    });

    it('given a run another store started, a second start of it is decided under lock: a duplicate, not a second run', async () => {
      const replica = new SagaStore(dataSource, new SagaRegistry([twoStepDefinition, claimingDefinition]));
      try {
        await replica.applyBatch([start('s1', 'replica-key')]);
      } finally {
        await replica.close();
      }
      const { result, fromMemory, stale } = await counted(() => store.applyBatch([start('s1', 'replica-key', 'u1', 1, 'start-s1-resent')]));
      expect({ fromMemory, stale }).toEqual({ fromMemory: 0, stale: 1 });
      expect(result.results.map((r) => r.status)).not.toContain('applied');
      const [runs] = await dataSource.query<Array<{ n: number }>>(`select count(*)::int as n from workflow_runs where id = $1`, [runIdOf('s1')]);
      expect(runs?.n).toBe(1);
      expect(await stateOf('s1')).toBe('WORKING');
    });

    it('given a holder that ends with no run waiting, ends it in one guarded write', async () => {
      await store.applyBatch([start('e1', 'quiet-key')]);
      const { fromMemory, stale } = await counted(() => store.applyBatch([worked('e1', true, 5)]));
      expect({ fromMemory, stale }).toEqual({ fromMemory: 1, stale: 0 });
      expect(await stateOf('e1')).toBe('DONE');
    });

    it('given a holder that ends with a run waiting, the guard fails and the waiter is told under lock', async () => {
      await store.applyBatch([start('w1', 'waited-key')]);
      await store.applyBatch([start('w2', 'waited-key')]);
      const { fromMemory, stale } = await counted(() => store.applyBatch([worked('w1', true, 9)]));
      expect({ fromMemory, stale }).toEqual({ fromMemory: 0, stale: 1 });
      expect(await fireHolderTimers('w2')).toBe(1);
      expect((await loadRunWithLogs(dataSource, runIdOf('w2')))?.run).toMatchObject({ state: 'DONE', data: { result: 9, answeredFrom: runIdOf('w1') } });
    });

    it('given holders ending while other stores claim their keys, every claimant is answered or told: none waits for ever', async () => {
      const claimants = new SagaStore(dataSource, new SagaRegistry([twoStepDefinition, claimingDefinition]));
      try {
        const rounds = 40;
        for (let i = 0; i < rounds; i += 1) await store.applyBatch([start(`rh${i}`, `race-${i}`)]);
        // Each holder ends (guarded, from memory) at the moment another store claims its key (locking path).
        await Promise.all(
          Array.from({ length: rounds }, (_, i) => [store.applyBatch([worked(`rh${i}`, true, i)]), claimants.applyBatch([start(`rc${i}`, `race-${i}`)])]).flat(),
        );
        for (let i = 0; i < rounds; i += 1) {
          if ((await stateOf(`rc${i}`)) === 'CLAIMING') expect(await fireHolderTimers(`rc${i}`)).toBe(1);
          expect((await loadRunWithLogs(dataSource, runIdOf(`rc${i}`)))?.run).toMatchObject({ state: 'DONE', data: { result: i, answeredFrom: runIdOf(`rh${i}`) } });
        }
      } finally {
        await claimants.close();
      }
    });
  });
});
