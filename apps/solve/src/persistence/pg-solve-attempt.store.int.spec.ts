import { openDatabase } from '@openpaw/persistence';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { SOLVE_SCHEMA } from '../config.js';
import { solveMigrations } from './migrations/index.js';
import { PgSolveAttemptStore } from './pg-solve-attempt.store.js';
import { SolutionAttemptEntity } from './solution-attempt.entity.js';

const LEASE_MS = 60_000;

describe('PgSolveAttemptStore: giving a failed delivery\'s claim back (real PostgreSQL)', () => {
  let dataSource: DataSource;
  let store: PgSolveAttemptStore;

  beforeAll(async () => {
    dataSource = await openDatabase({ url: await freshDatabase('solve_attempts'), schema: SOLVE_SCHEMA, entities: [SolutionAttemptEntity], migrations: solveMigrations });
    store = new PgSolveAttemptStore(dataSource);
  });

  afterAll(async () => {
    await dataSource.destroy();
  });

  it('a released claim is taken by the next delivery at once; before the release it is busy for the lease', async () => {
    const key = { runId: '00000000-0000-4000-8000-000000000001', attempt: 1 };
    const first = await store.claim(key, 'cmd-1', LEASE_MS);
    if (first.kind !== 'claimed') throw new Error(`expected a claim, got ${first.kind}`);
    const busy = await store.claim(key, 'cmd-1', LEASE_MS);
    expect(busy).toMatchObject({ kind: 'busy' });
    expect(busy.kind === 'busy' && busy.retryInMs).toBeGreaterThan(LEASE_MS - 5_000);

    await store.release(key, first.lease);
    expect(await store.claim(key, 'cmd-1', LEASE_MS)).toMatchObject({ kind: 'claimed' });
  });

  it('a release never touches a claim another delivery has taken since', async () => {
    const key = { runId: '00000000-0000-4000-8000-000000000002', attempt: 1 };
    const first = await store.claim(key, 'cmd-1', LEASE_MS);
    if (first.kind !== 'claimed') throw new Error(`expected a claim, got ${first.kind}`);
    // Another delivery takes over (as after the lease ran out): simulated by ageing the claim.
    await dataSource.query(`update solution_attempts set claimed_at = claimed_at - interval '2 minutes' where run_id = $1`, [key.runId]);
    const second = await store.claim(key, 'cmd-1', LEASE_MS);
    if (second.kind !== 'claimed') throw new Error(`expected a takeover, got ${second.kind}`);

    await store.release(key, first.lease);
    expect(await store.claim(key, 'cmd-1', LEASE_MS)).toMatchObject({ kind: 'busy' });
    await store.release(key, second.lease);
    expect(await store.claim(key, 'cmd-1', LEASE_MS)).toMatchObject({ kind: 'claimed' });
  });
});
