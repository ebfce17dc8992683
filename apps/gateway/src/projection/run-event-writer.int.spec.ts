import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { type PreparedSql, preparedSql } from '@openpaw/persistence';
import { asRunChange } from './run-change.js';
import { PROJECT_RUN_EVENTS, RunEventWriter } from './run-event-writer.js';
import { RUN_PROJECTION_TABLE, RunProjectionStore } from './run-projection.store.js';
import { RunTransitionStore } from './run-transition.store.js';
import { openProjectionDatabase, runEventFactory, secondsAfter } from '../testing/run-events.js';

const at = secondsAfter('2030-02-01T00:00:00.000Z');
const transitionOf = runEventFactory('user-grace', (version) => ({ version, quote: 'a "quoted" \\ value, {braced}' }));
const eventOf = (...args: Parameters<typeof transitionOf>) => asRunChange(transitionOf(...args));

describe('RunEventWriter (real PostgreSQL)', () => {
  let dataSource: DataSource;
  let runs: RunProjectionStore;
  let transitions: RunTransitionStore;
  /** The real statements, counted. */
  let statements: number;
  let sql: PreparedSql;

  beforeAll(async () => {
    dataSource = await openProjectionDatabase('gateway_run_event_writer');
    runs = new RunProjectionStore(dataSource);
    transitions = new RunTransitionStore(dataSource);
    const real = preparedSql(dataSource, 'spec_run_events');
    sql = {
      query: (text, parameters) => {
        statements += 1;
        return real.query(text, parameters);
      },
    };
  });
  beforeEach(() => {
    statements = 0;
  });
  afterAll(async () => {
    await dataSource.destroy();
  });

  it('probes the projection by run id however many runs it holds (its plan never scans the table)', async () => {
    const runner = dataSource.createQueryRunner();
    try {
      await runner.query(
        `insert into ${RUN_PROJECTION_TABLE} (run_id, workflow_type, user_id, state, terminal, attempt_no, version, view, created_at, updated_at)
         select gen_random_uuid(), 'Filler', 'user-filler', 'DONE', true, 1, 1, jsonb_build_object('view', repeat('v', 400)), now(), now()
         from generate_series(1, 5000)`,
      );
      await runner.query(`analyze ${RUN_PROJECTION_TABLE}`);
      // The plan a named statement keeps after its first executions.
      await runner.query('set plan_cache_mode = force_generic_plan');
      await runner.query(`prepare project_run_events(jsonb, jsonb) as ${PROJECT_RUN_EVENTS}`);
      const plan = (await runner.query(`explain execute project_run_events('[]', '[]')`)) as Array<{ 'QUERY PLAN': string }>;
      const text = plan.map((row) => row['QUERY PLAN']).join('\n');
      expect(text).toMatch(/run_projection_pkey/);
      expect(text).not.toMatch(/Seq Scan on run_projection/);
    } finally {
      await runner.query('deallocate all').catch(() => undefined);
      await runner.query('reset plan_cache_mode').catch(() => undefined);
      await runner.release();
    }
  });

  it("writes the events that arrive while others are in flight together, each run's row and timeline as if written one by one", async () => {
    const writer = new RunEventWriter(sql);
    const ids = Array.from({ length: 12 }, () => randomUUID());
    const parent = randomUUID();
    const retryScheduled = { step: 'generate', failedTry: 1, nextTry: 2, nextTryAt: at(9), reason: 'llm_unavailable' };
    const events = ids.map((runId, i) => eventOf(runId, 0, at(i), i === 0 ? { parentRunId: parent, terminal: true, retryScheduled } : {}));
    const projected = await Promise.all(events.map((e) => writer.write(e)));
    expect(statements).toBeLessThan(events.length);
    // Each event's row as it left it: what a read of the run answers.
    expect(projected).toEqual(await Promise.all(ids.map((runId) => runs.find(runId))));

    expect(await runs.find(ids[0]!)).toEqual({
      runId: ids[0],
      workflowType: 'TestWorkflow',
      userId: 'user-grace',
      state: 'S0',
      terminal: true,
      attemptNo: 1,
      version: 0,
      parentRunId: parent,
      view: events[0]!.view,
      createdAt: new Date(at(0)),
      updatedAt: new Date(at(0)),
      attemptStartedAt: new Date(at(0)),
    });
    expect(await transitions.forRun(ids[0]!)).toEqual([
      { version: 0, attemptNo: 1, stateBefore: null, stateAfter: 'S0', stepName: 'step-0', terminal: true, occurredAt: new Date(at(0)), retryScheduled },
    ]);
    expect((await runs.find(ids[11]!))?.view).toEqual(events[11]!.view);
    expect((await transitions.forRun(ids[11]!))[0]?.retryScheduled).toBeNull();
  });

  it("applies one run's events in arrival order even when they arrive together (newer first, then a late older one)", async () => {
    const writer = new RunEventWriter(sql);
    const runId = randomUUID();
    const other = randomUUID();
    const [newer, otherApplied, older, redelivered] = await Promise.all([
      writer.write(eventOf(runId, 2, at(20))),
      writer.write(eventOf(other, 0, at(21))),
      writer.write(eventOf(runId, 1, at(10))),
      writer.write(eventOf(runId, 2, at(25))),
    ]);
    expect([newer?.version, otherApplied?.version, older, redelivered]).toEqual([2, 0, undefined, undefined]);
    expect(await runs.find(runId)).toMatchObject({ version: 2, state: 'S2', createdAt: new Date(at(10)), updatedAt: new Date(at(20)), attemptStartedAt: new Date(at(10)) });
    expect((await transitions.forRun(runId)).map((t) => [t.version, t.occurredAt.toISOString()])).toEqual([
      [1, at(10)],
      [2, at(20)],
    ]);
  });

  it('fails only the bad event of a batch; the others are written', async () => {
    const writer = new RunEventWriter(sql);
    const good = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const results = await Promise.allSettled([
      ...good.map((runId) => writer.write(eventOf(runId, 0, at(30)))),
      writer.write(eventOf('not-a-uuid', 0, at(30))),
    ]);
    expect(results.slice(0, 4).map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(results[4]).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ message: expect.stringMatching(/uuid/) }) });
    for (const runId of good) expect(await runs.find(runId)).toMatchObject({ version: 0, state: 'S0' });
  });

  it("writes a change of several transitions once: every transition in the timeline, the row at the last, times from the first", async () => {
    const writer = new RunEventWriter(sql);
    const runId = randomUUID();
    const transitions0to3 = [0, 1, 2, 3].map((version) => transitionOf(runId, version, at(40 + version), version === 3 ? { terminal: true, attemptNo: 2 } : version === 2 ? { attemptNo: 2 } : {}));
    const last = transitions0to3[3]!;
    const change = { ...asRunChange(last), changes: transitions0to3.map((t) => asRunChange(t).changes[0]!) };
    expect(await writer.write(change)).toMatchObject({ version: 3, state: 'S3', terminal: true, attemptNo: 2 });
    expect(statements).toBe(1);
    expect(await runs.find(runId)).toMatchObject({ createdAt: new Date(at(40)), updatedAt: new Date(at(43)), attemptStartedAt: new Date(at(42)), view: last.view });
    expect((await transitions.forRun(runId)).map((t) => `${t.stateBefore}->${t.stateAfter}@${t.version}/${t.attemptNo}`)).toEqual([
      'null->S0@0/1',
      'S0->S1@1/1',
      'S1->S2@2/2',
      'S2->S3@3/2',
    ]);
  });
});
