import { randomUUID } from 'node:crypto';
import { openDatabase } from '@openpaw/persistence';
import { coordinatorMigrations } from '@openpaw/saga';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { idleRuns } from './idle-runs.js';

/** The stuck-runs reading on the coordinator's real runs table. */
describe('idleRuns', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openDatabase({ url: await freshDatabase('idle_runs'), schema: 'coordinator', migrations: coordinatorMigrations, poolSize: 2 });
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  const insertRun = (type: string, state: string, minutesAgo: number): Promise<unknown> =>
    dataSource.query(
      `insert into coordinator.workflow_runs (id, type, state, attempt_no, idempotency_key, user_id, data, version, created_at, updated_at)
       values ($1::uuid, $2, $3, 1, $5, 'u', '{}', 1, now() - make_interval(mins => $4), now() - make_interval(mins => $4))`,
      [randomUUID(), type, state, minutesAgo, randomUUID()],
    );

  it('counts the runs in the watched states and how long the least recently stepped one has been idle; other states are not read', async () => {
    await insertRun('solve_workflow', 'GENERATING', 40);
    await insertRun('solve_workflow', 'GENERATING', 2);
    await insertRun('solve_workflow', 'SUCCEEDED', 600);
    await insertRun('research', 'awaiting_confirmation', 300);
    await insertRun('research', 'processing', 10);
    // A name watched for one workflow, in another that does not watch it: not counted.
    await insertRun('research', 'GENERATING', 50);
    const watched = [
      { workflowType: 'solve_workflow', state: 'GENERATING' },
      { workflowType: 'solve_workflow', state: 'INITIATED' },
      { workflowType: 'research', state: 'processing' },
    ];
    const readings = await idleRuns(dataSource, watched);
    expect(readings.map((r) => ({ ...r, oldestIdleSeconds: Math.round(r.oldestIdleSeconds / 60) }))).toEqual([
      { workflowType: 'research', state: 'processing', runs: 1, oldestIdleSeconds: 10 },
      { workflowType: 'solve_workflow', state: 'GENERATING', runs: 2, oldestIdleSeconds: 40 },
    ]);
    expect(await idleRuns(dataSource, [])).toEqual([]);
  });
});
