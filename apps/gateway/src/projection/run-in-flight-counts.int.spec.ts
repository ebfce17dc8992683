import { randomUUID } from 'node:crypto';
import { RESEARCH_WORKFLOW } from '@openpaw/contracts';
import type { DataSource } from 'typeorm';
import { RESEARCH_DRAFT_STATE } from '../admission/admission-control.js';
import { openProjectionDatabase, runEventFactory, secondsAfter } from '../testing/run-events.js';
import { CountRunsInFlight1764800000000 } from './migrations/1764800000000-count-runs-in-flight.js';
import { RunEventApplier } from './run-event-applier.js';
import { RUN_IN_FLIGHT_COUNTS_TABLE, RUN_PROJECTION_TABLE } from './run-projection.store.js';

const at = secondsAfter('2030-01-01T00:00:00.000Z');

/**
 * The per-user counters of runs in flight (migration 1764800000000), kept by triggers on the
 * projection: after any sequence of projection writes through the real write path (in any order,
 * many at once, stale ones included), each counter equals a count of the user's rows in flight,
 * and a counter at 0 is gone.
 */
describe('runs in flight counters (real PostgreSQL)', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openProjectionDatabase('gateway_run_in_flight_counts');
  });
  afterAll(async () => {
    await dataSource.destroy();
  });

  /** Each (user, workflow) counter, and what a count of the projection's rows says it should be. */
  async function countersAndCounts(userIds: readonly string[]): Promise<{ counters: Record<string, number>; counts: Record<string, number> }> {
    const counters = await dataSource.query<Array<{ key: string; runs: number }>>(
      `select user_id || '/' || workflow_type as key, runs from ${RUN_IN_FLIGHT_COUNTS_TABLE} where user_id = any($1::text[])`,
      [userIds],
    );
    const counts = await dataSource.query<Array<{ key: string; runs: number }>>(
      `select user_id || '/' || workflow_type as key, count(*)::int as runs from ${RUN_PROJECTION_TABLE}
       where user_id = any($1::text[]) and not terminal and not (workflow_type = $2 and state = $3) group by 1`,
      [userIds, RESEARCH_WORKFLOW, RESEARCH_DRAFT_STATE],
    );
    return { counters: Object.fromEntries(counters.map((r) => [r.key, r.runs])), counts: Object.fromEntries(counts.map((r) => [r.key, r.runs])) };
  }

  it('counts a run in flight from its first change to its terminal one, whatever order the changes arrive in', async () => {
    const userId = `user-${randomUUID()}`;
    const eventOf = runEventFactory(userId);
    const applier = new RunEventApplier(dataSource);
    const [first, second] = [randomUUID(), randomUUID()];
    await applier.apply(eventOf(first, 0, at(1)));
    await applier.apply(eventOf(second, 1, at(2)));
    expect(await countersAndCounts([userId])).toEqual({ counters: { [`${userId}/TestWorkflow`]: 2 }, counts: { [`${userId}/TestWorkflow`]: 2 } });
    // The second run's terminal change first, then its earlier one (stale: it changes no row).
    await applier.apply(eventOf(second, 3, at(4), { terminal: true, stateAfter: 'SUCCEEDED' }));
    await applier.apply(eventOf(second, 2, at(3)));
    await applier.apply(eventOf(first, 1, at(5)));
    expect(await countersAndCounts([userId])).toEqual({ counters: { [`${userId}/TestWorkflow`]: 1 }, counts: { [`${userId}/TestWorkflow`]: 1 } });
    // Its last run ended: the counter is gone, not kept at 0.
    await applier.apply(eventOf(first, 2, at(6), { terminal: true, stateAfter: 'FAILED' }));
    expect(await countersAndCounts([userId])).toEqual({ counters: {}, counts: {} });
  });

  it('leaves a research draft out until it starts, and counts a run deleted in flight out', async () => {
    const userId = `user-${randomUUID()}`;
    const eventOf = runEventFactory(userId);
    const applier = new RunEventApplier(dataSource);
    const research = randomUUID();
    const other = randomUUID();
    await applier.apply(eventOf(research, 0, at(1), { workflowType: RESEARCH_WORKFLOW, stateAfter: RESEARCH_DRAFT_STATE }));
    await applier.apply(eventOf(other, 0, at(1)));
    expect((await countersAndCounts([userId])).counters).toEqual({ [`${userId}/TestWorkflow`]: 1 });
    await applier.apply(eventOf(research, 1, at(2), { workflowType: RESEARCH_WORKFLOW, stateBefore: RESEARCH_DRAFT_STATE, stateAfter: 'running' }));
    expect(await countersAndCounts([userId])).toEqual({
      counters: { [`${userId}/TestWorkflow`]: 1, [`${userId}/${RESEARCH_WORKFLOW}`]: 1 },
      counts: { [`${userId}/TestWorkflow`]: 1, [`${userId}/${RESEARCH_WORKFLOW}`]: 1 },
    });
    await dataSource.query(`delete from ${RUN_PROJECTION_TABLE} where run_id = $1`, [other]);
    expect(await countersAndCounts([userId])).toEqual({ counters: { [`${userId}/${RESEARCH_WORKFLOW}`]: 1 }, counts: { [`${userId}/${RESEARCH_WORKFLOW}`]: 1 } });
  });

  it('agrees with a count after many writers project many runs of a few users at once', async () => {
    const userIds = Array.from({ length: 3 }, () => `user-${randomUUID()}`);
    // Separate appliers: separate writers, so their statements run concurrently on the pool.
    const appliers = Array.from({ length: 4 }, () => new RunEventApplier(dataSource));
    const runs = Array.from({ length: 60 }, (_, i) => ({ runId: randomUUID(), userId: userIds[i % userIds.length]!, ends: i % 3 !== 0 }));
    // Every change of every run, shuffled: versions arrive out of order, some twice.
    const changes = runs.flatMap(({ runId, userId, ends }) => {
      const eventOf = runEventFactory(userId);
      const last = ends ? [eventOf(runId, 3, at(3), { terminal: true, stateAfter: 'SUCCEEDED' })] : [];
      return [eventOf(runId, 0, at(0)), eventOf(runId, 1, at(1)), eventOf(runId, 1, at(1)), eventOf(runId, 2, at(2)), ...last];
    });
    for (let i = changes.length - 1; i > 0; i -= 1) {
      const j = Math.floor(Math.random() * (i + 1));
      [changes[i], changes[j]] = [changes[j]!, changes[i]!];
    }
    await Promise.all(changes.map((change, i) => appliers[i % appliers.length]!.apply(change)));
    const { counters, counts } = await countersAndCounts(userIds);
    expect(counters).toEqual(counts);
    expect(Object.values(counters).reduce((a, b) => a + b, 0)).toBe(runs.filter((r) => !r.ends).length);
  });

  it('counts the rows written before the migration (a rolling update adds the counters to a live projection)', async () => {
    const userId = `user-${randomUUID()}`;
    const migration = new CountRunsInFlight1764800000000();
    const queryRunner = dataSource.createQueryRunner();
    try {
      await migration.down(queryRunner);
      const eventOf = runEventFactory(userId);
      const applier = new RunEventApplier(dataSource);
      await applier.apply(eventOf(randomUUID(), 0, at(0)));
      await applier.apply(eventOf(randomUUID(), 1, at(0)));
      await applier.apply(eventOf(randomUUID(), 1, at(0), { terminal: true, stateAfter: 'SUCCEEDED' }));
      await queryRunner.startTransaction();
      await migration.up(queryRunner);
      await queryRunner.commitTransaction();
    } finally {
      await queryRunner.release();
    }
    expect(await countersAndCounts([userId])).toEqual({ counters: { [`${userId}/TestWorkflow`]: 2 }, counts: { [`${userId}/TestWorkflow`]: 2 } });
    const everyone = await dataSource.query<Array<{ mismatched: string }>>(
      `select count(*) as mismatched from (select user_id, workflow_type, count(*)::int as runs from ${RUN_PROJECTION_TABLE}
       where not terminal and not (workflow_type = $1 and state = $2) group by 1, 2) c
       full join ${RUN_IN_FLIGHT_COUNTS_TABLE} k using (user_id, workflow_type) where c.runs is distinct from k.runs`,
      [RESEARCH_WORKFLOW, RESEARCH_DRAFT_STATE],
    );
    expect(Number(everyone[0]?.mismatched)).toBe(0);
  });
});
