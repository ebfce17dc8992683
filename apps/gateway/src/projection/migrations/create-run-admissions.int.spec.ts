import { openDatabase } from '@openpaw/persistence';
import { freshDatabase } from '@openpaw/testing';
import { CreateRunAdmissions1764530000000 } from './1764530000000-create-run-admissions.js';
import { gatewayMigrations } from './index.js';

describe('CreateRunAdmissions1764530000000 (real PostgreSQL)', () => {
  it('creates run_admissions with one tier per run; down drops it and up makes it again', async () => {
    const url = await freshDatabase('gateway_run_admissions_migration');
    // Up to this migration, so that undoing the last one undoes it (later migrations have their own specs).
    const upTo = gatewayMigrations.slice(0, gatewayMigrations.indexOf(CreateRunAdmissions1764530000000) + 1);
    const database = await openDatabase({ url, schema: 'gateway', migrations: upTo });
    const exists = async (): Promise<boolean> => {
      const [row] = await database.query<{ found: string | null }[]>(`select to_regclass('gateway.run_admissions')::text as found`);
      return typeof row?.found === 'string';
    };
    try {
      const runId = crypto.randomUUID();
      await database.query(`insert into gateway.run_admissions (run_id, user_id, tier) values ($1, 'u1', 'pro')`, [runId]);
      await expect(database.query(`insert into gateway.run_admissions (run_id, user_id, tier) values ($1, 'u1', 'free')`, [runId])).rejects.toThrow(/duplicate key/);
      expect(await database.query(`select user_id, tier from gateway.run_admissions`)).toEqual([{ user_id: 'u1', tier: 'pro' }]);

      await database.undoLastMigration();
      expect(await exists()).toBe(false);
      await database.runMigrations();
      expect(await exists()).toBe(true);
    } finally {
      await database.destroy();
    }
  });
});
