import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { RunEventApplier } from './run-event-applier.js';
import { RunProjectionStore } from './run-projection.store.js';
import { RunTransitionStore } from './run-transition.store.js';
import { openProjectionDatabase, runEventFactory, secondsAfter } from '../testing/run-events.js';

const at = secondsAfter('2030-01-01T00:00:00.000Z');
const eventOf = runEventFactory('user-ada');

describe('RunEventApplier (real PostgreSQL)', () => {
  let dataSource: DataSource;
  let runs: RunProjectionStore;
  let transitions: RunTransitionStore;

  beforeAll(async () => {
    dataSource = await openProjectionDatabase('gateway_run_event_applier');
    runs = new RunProjectionStore(dataSource);
    transitions = new RunTransitionStore(dataSource);
  });
  afterAll(async () => {
    await dataSource.destroy();
  });

  it('moves the row to newer versions only; a late older event is in the timeline and keeps the earliest times', async () => {
    const applier = new RunEventApplier(dataSource);
    const runId = randomUUID();
    expect(await applier.apply(eventOf(runId, 1, at(10)))).toMatchObject({ version: 1, state: 'S1' });
    const second = await applier.apply(eventOf(runId, 2, at(20), { view: { progress: 'two' } }));
    // The row as the event left it, as a read of it answers.
    expect(second).toEqual(await runs.find(runId));
    // Version 0 arrives last (the consumer applies in any order), with the run's first time.
    expect(await applier.apply(eventOf(runId, 0, at(5)))).toBeUndefined();

    expect(await runs.find(runId)).toEqual({
      runId,
      workflowType: 'TestWorkflow',
      userId: 'user-ada',
      state: 'S2',
      terminal: false,
      attemptNo: 1,
      version: 2,
      parentRunId: null,
      view: { progress: 'two' },
      createdAt: new Date(at(5)),
      updatedAt: new Date(at(20)),
      attemptStartedAt: new Date(at(5)),
    });
    expect((await transitions.forRun(runId)).map((t) => [t.version, t.stateAfter, t.occurredAt.toISOString()])).toEqual([
      [0, 'S0', at(5)],
      [1, 'S1', at(10)],
      [2, 'S2', at(20)],
    ]);
  });

  it('changes nothing for a redelivered event, even through another replica (another applier)', async () => {
    const runId = randomUUID();
    const retryScheduled = { step: 'generate', failedTry: 1, nextTry: 2, nextTryAt: at(40), reason: 'llm_unavailable' };
    const event = eventOf(runId, 0, at(30), { retryScheduled });
    expect(await new RunEventApplier(dataSource).apply(event)).toBeDefined();
    const before = await runs.find(runId);
    expect(await new RunEventApplier(dataSource).apply({ ...event, occurredAt: at(35), view: { changed: true } })).toBeUndefined();
    expect(await runs.find(runId)).toEqual(before);
    expect((await transitions.forRun(runId)).map((t) => [t.version, t.occurredAt.toISOString(), t.retryScheduled])).toEqual([[0, at(30), retryScheduled]]);
  });

  it("starts the attempt's clock when the attempt number grows, and keeps the attempt's earliest event time", async () => {
    const applier = new RunEventApplier(dataSource);
    const runId = randomUUID();
    await applier.apply(eventOf(runId, 0, at(0)));
    await applier.apply(eventOf(runId, 1, at(10), { terminal: true, stateAfter: 'FAILED' }));
    await applier.apply(eventOf(runId, 3, at(30), { attemptNo: 2 }));
    expect(await runs.find(runId)).toMatchObject({ version: 3, attemptNo: 2, createdAt: new Date(at(0)), attemptStartedAt: new Date(at(30)) });
    // The re-attempt's first event comes late: the attempt started then.
    expect(await applier.apply(eventOf(runId, 2, at(20), { attemptNo: 2 }))).toBeUndefined();
    expect(await runs.find(runId)).toMatchObject({ version: 3, attemptNo: 2, createdAt: new Date(at(0)), attemptStartedAt: new Date(at(20)), updatedAt: new Date(at(30)) });
  });

  it('writes an event once per process: the second apply (the consumer after the live feeder) waits for the first and writes nothing', async () => {
    const applier = new RunEventApplier(dataSource);
    const runId = randomUUID();
    const event = eventOf(runId, 0, at(50));
    const [first, second] = await Promise.all([applier.apply(event), applier.apply(event)]);
    expect([first, second].filter((projected) => projected !== undefined)).toEqual([await runs.find(runId)]);
    // Were the event written again, its transition would come back.
    await dataSource.query(`delete from gateway.run_transitions where run_id = $1`, [runId]);
    expect(await applier.apply(event)).toBeUndefined();
    expect(await transitions.forRun(runId)).toEqual([]);
    // Another process has not seen it, and writes it (idempotently).
    expect(await new RunEventApplier(dataSource).apply(event)).toBeUndefined();
    expect((await transitions.forRun(runId)).map((t) => t.version)).toEqual([0]);
  });

  it('does not take a failed apply for a done one: the next apply of the event writes it', async () => {
    const applier = new RunEventApplier(dataSource);
    const runId = randomUUID();
    const event = eventOf(runId, 0, at(60));
    await dataSource.query(`alter table gateway.run_transitions rename to run_transitions_away`);
    try {
      await expect(applier.apply(event)).rejects.toThrow(/run_transitions/);
    } finally {
      await dataSource.query(`alter table gateway.run_transitions_away rename to run_transitions`);
    }
    expect(await applier.apply(event)).toMatchObject({ version: 0, state: 'S0' });
    expect(await runs.find(runId)).toMatchObject({ version: 0, state: 'S0' });
    expect((await transitions.forRun(runId)).map((t) => t.version)).toEqual([0]);
  });
});
