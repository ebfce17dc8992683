import { openDatabase } from '@openpaw/persistence';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { ingestionMigrations } from '../persistence/migrations/index.js';
import { PgExternalReadQuota } from './external-reading.js';

describe('PgExternalReadQuota (real PostgreSQL, the ingestion schema as migrated)', () => {
  let database: DataSource;

  beforeAll(async () => {
    database = await openDatabase({ url: await freshDatabase('ingestion_external_reads'), schema: 'ingestion', migrations: ingestionMigrations });
  });

  afterAll(async () => {
    await database.destroy();
  });

  it('grants exactly the cap to concurrent takes, per user and period, and nothing at cap 0', async () => {
    // Two replicas' worth of connections racing for one user's day.
    const replicas = [new PgExternalReadQuota(database), new PgExternalReadQuota(database)];
    const granted = await Promise.all(Array.from({ length: 24 }, (_x, i) => replicas[i % 2]!.take('u-1', '2026-11-27', 5)));
    expect(granted.filter(Boolean)).toHaveLength(5);
    expect(await replicas[0]!.take('u-1', '2026-11-27', 5)).toBe(false);
    // Another period, another user: their own counts.
    expect(await replicas[0]!.take('u-1', '2026-11-28', 5)).toBe(true);
    expect(await replicas[1]!.take('u-2', '2026-11-27', 1)).toBe(true);
    expect(await replicas[1]!.take('u-2', '2026-11-27', 1)).toBe(false);
    // A raised cap lets more through; a cap of 0 never takes or writes.
    expect(await replicas[0]!.take('u-2', '2026-11-27', 2)).toBe(true);
    expect(await replicas[0]!.take('u-3', '2026-11-27', 0)).toBe(false);
    const rows = await database.query<{ user_id: string; period: string; calls: number }[]>('select user_id, period, calls from ingestion.external_reads order by user_id, period');
    expect(rows).toEqual([
      { user_id: 'u-1', period: '2026-11-27', calls: 5 },
      { user_id: 'u-1', period: '2026-11-28', calls: 1 },
      { user_id: 'u-2', period: '2026-11-27', calls: 2 },
    ]);
  });
});
