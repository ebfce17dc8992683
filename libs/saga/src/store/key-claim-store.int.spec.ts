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
});
