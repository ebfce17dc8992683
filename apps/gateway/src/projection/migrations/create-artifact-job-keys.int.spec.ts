import { freshDatabase } from '@openpaw/testing';
import { CreateArtifactJobKeys1764700000000 } from './1764700000000-create-artifact-job-keys.js';
import { openGatewayUpTo, tableAfterDownThenUp } from '../../testing/migrated-gateway.js';

describe('CreateArtifactJobKeys1764700000000 (real PostgreSQL)', () => {
  it('creates artifact_job_keys with one job per (user, key); down drops it and up makes it again', async () => {
    const url = await freshDatabase('gateway_artifact_job_keys_migration');
    const database = await openGatewayUpTo(url, CreateArtifactJobKeys1764700000000);
    const insert = (userId: string, jobId: string): Promise<unknown> =>
      database.query(`insert into gateway.artifact_job_keys (user_id, idempotency_key, job_id, sequence, request_digest) values ($1, 'k1', $2, 1, 'd')`, [userId, jobId]);
    try {
      await insert('u1', crypto.randomUUID());
      await expect(insert('u1', crypto.randomUUID())).rejects.toThrow(/duplicate key/);
      await insert('u2', crypto.randomUUID());
      expect(await database.query(`select user_id, start_input from gateway.artifact_job_keys order by user_id`)).toEqual([
        { user_id: 'u1', start_input: null },
        { user_id: 'u2', start_input: null },
      ]);

      expect(await tableAfterDownThenUp(database, 'gateway.artifact_job_keys')).toEqual({ afterDown: false, afterUp: true });
    } finally {
      await database.destroy();
    }
  });
});
