import { createEnvelope, runIdFor } from '@openpaw/contracts';
import { openDatabase } from '@openpaw/persistence';
import { freshDatabase, StepDone, threeStepSaga } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { replayRun } from '../replay.js';
import { SagaRegistry } from '../registry.js';
import { coordinatorEntities } from './entities.js';
import { coordinatorMigrations } from './migrations.js';
import { loadRunWithLogs } from './run-queries.js';
import { type PendingInput, SagaStore } from './saga-store.js';

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
    store = new SagaStore(dataSource, new SagaRegistry([threeStepSaga]));
  });

  afterAll(async () => {
    await dataSource.destroy();
  });

  const start = (key: string, messageId = `start-${key}`): PendingInput => ({
    kind: 'start',
    meta: { messageId, runId: runIdFor(threeStepSaga.type, key) },
    request: { workflowType: threeStepSaga.type, idempotencyKey: key, userId: 'u1', input: { payload: key } },
  });

  const done = (key: string, step: number, messageId = `done-${key}-${step}`): PendingInput => {
    const runId = runIdFor(threeStepSaga.type, key);
    return {
      kind: 'input',
      meta: { messageId, runId },
      input: {
        kind: 'event',
        envelope: createEnvelope(StepDone, { runId, step, outcome: 'ok', result: `r${step}` }, { id: messageId, source: '/test', correlationId: runId }),
      },
    };
  };

  it('applies a batch for many runs in one transaction and dedups by message id', async () => {
    const first = await store.applyBatch([start('a'), start('b'), start('a', 'start-a')]);
    expect(first.results.map((r) => r.status)).toEqual(['applied', 'applied', 'duplicate']);
    // Two DoStep commands and two RunStateChanged events, all in the outbox.
    expect(first.outbox.map((o) => o.envelope.type).sort()).toEqual([
      'openpaw.cmd.testworker.DoStep.v1',
      'openpaw.cmd.testworker.DoStep.v1',
      'openpaw.evt.workflow.RunStateChanged.v1',
      'openpaw.evt.workflow.RunStateChanged.v1',
    ]);
    const again = await store.applyBatch([start('a')]);
    expect(again.results.map((r) => r.status)).toEqual(['duplicate']);
    const [{ count }] = (await dataSource.query(`select count(*)::int as count from outbox`)) as [{ count: number }];
    expect(count).toBe(4);
  });

  it('runs a whole saga, and its step log replays to the same states', async () => {
    await store.applyBatch([start('c')]);
    await store.applyBatch([done('c', 1), done('c', 1, 'done-c-1-redelivered')]);
    await store.applyBatch([done('c', 2)]);
    await store.applyBatch([done('c', 3)]);
    const loaded = await loadRunWithLogs(dataSource, runIdFor(threeStepSaga.type, 'c'));
    expect(loaded?.run.state).toBe('SUCCEEDED');
    expect(loaded?.logs.map((l) => `${l.stepName}:${l.stateAfter}`)).toEqual([
      'run_started:INITIATED',
      'start:STEP_1',
      'openpaw.evt.testworker.StepDone.v1:STEP_2',
      'input_ignored:STEP_2',
      'openpaw.evt.testworker.StepDone.v1:STEP_3',
      'completed:SUCCEEDED',
    ]);
    if (loaded === undefined) throw new Error('run missing');
    expect(replayRun(threeStepSaga, loaded.run, loaded.logs)).toMatchObject({ ok: true, finalState: 'SUCCEEDED' });
  });

  it('rolls everything back when the transaction fails', async () => {
    const broken: PendingInput = { ...start('d'), meta: { messageId: 'start-d', runId: 'not-a-uuid' } };
    await expect(store.applyBatch([start('e'), broken])).rejects.toThrow();
    const rows = (await dataSource.query(`select count(*)::int as count from inbox where message_id = 'start-e'`)) as [{ count: number }];
    expect(rows[0].count).toBe(0);
    expect(await loadRunWithLogs(dataSource, runIdFor(threeStepSaga.type, 'e'))).toBeUndefined();
  });

  it('serialises concurrent batches touching the same run', async () => {
    await store.applyBatch([start('f')]);
    const results = await Promise.all([store.applyBatch([done('f', 1, 'x1')]), store.applyBatch([done('f', 1, 'x2')])]);
    const statuses = results.flatMap((r) => r.results.map((x) => x.status)).sort();
    expect(statuses).toEqual(['applied', 'ignored']);
  });
});
