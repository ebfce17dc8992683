import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { privateNatsServer, type NatsServerHandle } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { RUN_ADMISSIONS_TABLE, RUN_PROJECTION_TABLE } from '../projection/run-projection.store.js';
import { RETRIEVE_OR_GENERATE } from '../problems/workflow-result.js';
import { openProjectionDatabase } from '../testing/run-events.js';
import { AdmissionControl } from './admission-control.js';
import { type AdmissionLimits, DEFAULT_ADMISSION_LIMITS } from './admission-limits.js';

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Admission control's in-flight counts on a real projection table (PostgreSQL) and NATS: a run
 * admitted here is counted exactly once, whether or not the projection shows it yet, by the user's
 * count (read on every start) and by everyone's (a reading shared by the starts of a short while).
 */
describe('AdmissionControl in-flight counts (real PostgreSQL)', () => {
  let dataSource: DataSource;
  let nats: NatsServerHandle;
  let nc: NatsConnection;

  const limits = (maxInFlight: number, maxInFlightTotal: number): AdmissionLimits => ({
    ...DEFAULT_ADMISSION_LIMITS,
    tiers: { ...DEFAULT_ADMISSION_LIMITS.tiers, free: { ratePerSecond: 10_000, burst: 10_000, maxInFlight } },
    maxInFlightTotal,
  });
  /** The projection's row of a run, as the projection consumer would write it. */
  const project = async (runId: string, userId: string, terminal: boolean): Promise<void> => {
    await dataSource.query(
      `insert into ${RUN_PROJECTION_TABLE} (run_id, workflow_type, user_id, state, terminal, attempt_no, version, created_at, updated_at)
       values ($1, $2, $3, $4, $5, 1, 0, now(), now())
       on conflict (run_id) do update set state = excluded.state, terminal = excluded.terminal`,
      [runId, RETRIEVE_OR_GENERATE, userId, terminal ? 'SUCCEEDED' : 'RETRIEVING', terminal],
    );
  };

  beforeAll(async () => {
    dataSource = await openProjectionDatabase('gateway_admission_control');
    nats = await privateNatsServer();
    nc = await connect({ servers: nats.url, name: 'admission-control-int-spec' });
  });
  afterAll(async () => {
    await nc?.close();
    await nats?.dispose();
    await dataSource?.destroy();
  });

  it("counts a user's run once: admitted here and not projected, then projected, then ended", async () => {
    const admission = new AdmissionControl(limits(2, 10_000), dataSource, nc);
    const userId = `user-${randomUUID()}`;
    const first = randomUUID();
    expect(await admission.admit(userId, 'free')).toEqual({ admitted: true });
    admission.started(first, userId, 'free');
    // Not projected yet: counted from what this gateway admitted.
    expect(await admission.admit(userId, 'free')).toEqual({ admitted: true });
    // Projected and running: counted from the projection, not a second time from here.
    await project(first, userId, false);
    expect(await admission.admit(userId, 'free')).toEqual({ admitted: true });
    const second = randomUUID();
    admission.started(second, userId, 'free');
    expect(await admission.admit(userId, 'free')).toMatchObject({ admitted: false, reason: 'too_many_in_flight', detail: 'you have 2 runs in flight (the free tier allows 2)' });
    // Ended: the user may start again.
    await project(first, userId, true);
    expect(await admission.admit(userId, 'free')).toEqual({ admitted: true });
  });

  it("counts a user's runs across gateway replicas once the projection shows them, and forgets one it no longer shows", async () => {
    const [here, there] = [new AdmissionControl(limits(3, 10_000), dataSource, nc), new AdmissionControl(limits(3, 10_000), dataSource, nc)];
    const userId = `user-${randomUUID()}`;
    const runs = [randomUUID(), randomUUID()];
    for (const runId of runs) {
      expect(await here.admit(userId, 'free')).toEqual({ admitted: true });
      here.started(runId, userId, 'free');
    }
    // Shown by the projection: from now on counted by its counters (here asks no more about them).
    for (const runId of runs) await project(runId, userId, false);
    expect(await here.admit(userId, 'free')).toEqual({ admitted: true });
    const third = randomUUID();
    there.started(third, userId, 'free');
    await project(third, userId, false);
    expect(await here.admit(userId, 'free')).toMatchObject({ admitted: false, detail: 'you have 3 runs in flight (the free tier allows 3)' });
    expect(await there.admit(userId, 'free')).toMatchObject({ admitted: false, detail: 'you have 3 runs in flight (the free tier allows 3)' });
    // One ends, one is removed from the projection: neither is counted by either replica.
    await project(runs[0]!, userId, true);
    await dataSource.query(`delete from ${RUN_PROJECTION_TABLE} where run_id = $1`, [runs[1]]);
    expect(await here.admit(userId, 'free')).toEqual({ admitted: true });
    expect(await there.admit(userId, 'free')).toEqual({ admitted: true });
    // The next shared reading (at most every 100 ms) forgets both.
    await delay(150);
    await here.admit(userId, 'free');
    expect(runs.map((runId) => here.admittedHere(runId, userId))).toEqual([false, false]);
  });

  it('refuses at the platform-wide limit within one shared reading: the admissions made since it are counted', async () => {
    const [running] = await dataSource.query<Array<{ count: string }>>(`select count(*) from ${RUN_PROJECTION_TABLE} where not terminal`);
    const room = 40;
    const limit = Number(running?.count ?? 0) + room;
    const admission = new AdmissionControl(limits(1_000, limit), dataSource, nc);
    const users = Array.from({ length: 4 }, () => `user-${randomUUID()}`);
    let admitted = 0;
    // Starts in one burst (within the reading's lifetime), one user after another.
    for (let i = 0; i < room + 3; i += 1) {
      const userId = users[i % users.length]!;
      const decision = await admission.admit(userId, 'free');
      if (decision.admitted) {
        admission.started(randomUUID(), userId, 'free');
        admitted += 1;
      } else {
        expect(decision).toMatchObject({ reason: 'platform_busy', detail: `${limit} runs are in flight (limit ${limit})` });
      }
    }
    expect(admitted).toBe(room);
  });

  it("records each admission's tier for the ops page, many starts in one statement", async () => {
    const admission = new AdmissionControl(limits(1_000, 1_000_000), dataSource, nc);
    const userId = `user-${randomUUID()}`;
    const runIds = Array.from({ length: 20 }, () => randomUUID());
    for (const runId of runIds) admission.started(runId, userId, 'free');
    let recorded = 0;
    for (let attempt = 0; attempt < 50 && recorded < runIds.length; attempt += 1) {
      await delay(20);
      const [row] = await dataSource.query<Array<{ count: string }>>(`select count(*) from ${RUN_ADMISSIONS_TABLE} where run_id = any($1::uuid[]) and tier = 'free'`, [runIds]);
      recorded = Number(row?.count ?? 0);
    }
    expect(recorded).toBe(runIds.length);
  });
});
