import { freshDatabase } from '@openpaw/testing';
import { CreateRunAdmissions1764530000000 } from './1764530000000-create-run-admissions.js';
import { openGatewayUpTo, tableAfterDownThenUp } from '../../testing/migrated-gateway.js';

describe('CreateRunAdmissions1764530000000 (real PostgreSQL)', () => {
  it('creates run_admissions with one tier per run; down drops it and up makes it again', async () => {
    const url = await freshDatabase('gateway_run_admissions_migration');
    const database = await openGatewayUpTo(url, CreateRunAdmissions1764530000000);
    try {
      const runId = crypto.randomUUID();
      await database.query(`insert into gateway.run_admissions (run_id, user_id, tier) values ($1, 'u1', 'pro')`, [runId]);
      await expect(database.query(`insert into gateway.run_admissions (run_id, user_id, tier) values ($1, 'u1', 'free')`, [runId])).rejects.toThrow(/duplicate key/);
      expect(await database.query(`select user_id, tier from gateway.run_admissions`)).toEqual([{ user_id: 'u1', tier: 'pro' }]);

      expect(await tableAfterDownThenUp(database, 'gateway.run_admissions')).toEqual({ afterDown: false, afterUp: true });
    } finally {
      await database.destroy();
    }
  });
});
