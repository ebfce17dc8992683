import { openDatabase } from '@openpaw/persistence';
import { freshDatabase } from '@openpaw/testing';
import { CreateSavedRunViews1764510000000 } from './1764510000000-create-saved-run-views.js';
import { gatewayMigrations } from './index.js';

describe('CreateSavedRunViews1764510000000 (real PostgreSQL)', () => {
  it('creates saved_run_views with one name per user; down drops it and up makes it again', async () => {
    const url = await freshDatabase('gateway_saved_views_migration');
    // Up to this migration, so that undoing the last one undoes it (later migrations have their own specs).
    const upTo = gatewayMigrations.slice(0, gatewayMigrations.indexOf(CreateSavedRunViews1764510000000) + 1);
    const database = await openDatabase({ url, schema: 'gateway', migrations: upTo });
    const exists = async (): Promise<boolean> => {
      const [row] = await database.query<{ found: string | null }[]>(`select to_regclass('gateway.saved_run_views')::text as found`);
      return row?.found !== null && row?.found !== undefined;
    };
    try {
      await database.query(`insert into gateway.saved_run_views (user_id, name, filter) values ('u1', 'Failed', '{"state":"FAILED"}')`);
      await expect(database.query(`insert into gateway.saved_run_views (user_id, name, filter) values ('u1', 'Failed', '{}')`)).rejects.toThrow(/duplicate key/);
      await database.query(`insert into gateway.saved_run_views (user_id, name, filter) values ('u2', 'Failed', '{}')`);
      expect(await database.query(`select user_id, filter from gateway.saved_run_views order by user_id`)).toEqual([
        { user_id: 'u1', filter: { state: 'FAILED' } },
        { user_id: 'u2', filter: {} },
      ]);

      await database.undoLastMigration();
      expect(await exists()).toBe(false);
      await database.runMigrations();
      expect(await exists()).toBe(true);
    } finally {
      await database.destroy();
    }
  });
});
