import { freshDatabase } from '@openpaw/testing';
import { CreateSavedRunViews1764510000000 } from './1764510000000-create-saved-run-views.js';
import { openGatewayUpTo, tableAfterDownThenUp } from '../../testing/migrated-gateway.js';

describe('CreateSavedRunViews1764510000000 (real PostgreSQL)', () => {
  it('creates saved_run_views with one name per user; down drops it and up makes it again', async () => {
    const url = await freshDatabase('gateway_saved_views_migration');
    const database = await openGatewayUpTo(url, CreateSavedRunViews1764510000000);
    try {
      await database.query(`insert into gateway.saved_run_views (user_id, name, filter) values ('u1', 'Failed', '{"state":"FAILED"}')`);
      await expect(database.query(`insert into gateway.saved_run_views (user_id, name, filter) values ('u1', 'Failed', '{}')`)).rejects.toThrow(/duplicate key/);
      await database.query(`insert into gateway.saved_run_views (user_id, name, filter) values ('u2', 'Failed', '{}')`);
      expect(await database.query(`select user_id, filter from gateway.saved_run_views order by user_id`)).toEqual([
        { user_id: 'u1', filter: { state: 'FAILED' } },
        { user_id: 'u2', filter: {} },
      ]);

      expect(await tableAfterDownThenUp(database, 'gateway.saved_run_views')).toEqual({ afterDown: false, afterUp: true });
    } finally {
      await database.destroy();
    }
  });
});
