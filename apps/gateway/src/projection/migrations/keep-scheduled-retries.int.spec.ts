import { freshDatabase } from '@openpaw/testing';
import { KeepScheduledRetries1764520000000 } from './1764520000000-keep-scheduled-retries.js';
import { openGatewayUpTo } from '../../testing/migrated-gateway.js';

describe('KeepScheduledRetries1764520000000 (real PostgreSQL)', () => {
  it('adds retry_scheduled to the timeline (null for rows before it); down drops the column and keeps the rows', async () => {
    const url = await freshDatabase('gateway_scheduled_retries_migration');
    const before = await openGatewayUpTo(url, KeepScheduledRetries1764520000000, { including: false });
    const runId = crypto.randomUUID();
    await before.query(
      `insert into gateway.run_transitions (run_id, version, attempt_no, state_before, state_after, step_name, terminal, occurred_at) values ($1, 0, 1, null, 'GENERATING', 'start', false, now())`,
      [runId],
    );
    await before.destroy();

    const after = await openGatewayUpTo(url, KeepScheduledRetries1764520000000);
    try {
      const retry = { step: 'generate', failedTry: 1, nextTry: 2, nextTryAt: '2026-11-24T05:00:00.000Z', reason: 'timeout' };
      await after.query(
        `insert into gateway.run_transitions (run_id, version, attempt_no, state_before, state_after, step_name, terminal, occurred_at, retry_scheduled) values ($1, 1, 1, 'GENERATING', 'GENERATING', 'generate_failed', false, now(), $2::jsonb)`,
        [runId, JSON.stringify(retry)],
      );
      expect(await after.query(`select version, retry_scheduled from gateway.run_transitions where run_id = $1 order by version`, [runId])).toEqual([
        { version: 0, retry_scheduled: null },
        { version: 1, retry_scheduled: retry },
      ]);
      await after.undoLastMigration();
      expect(await after.query(`select version, state_after from gateway.run_transitions where run_id = $1 order by version`, [runId])).toEqual([
        { version: 0, state_after: 'GENERATING' },
        { version: 1, state_after: 'GENERATING' },
      ]);
      await expect(after.query(`select retry_scheduled from gateway.run_transitions`)).rejects.toThrow(/retry_scheduled/);
    } finally {
      await after.destroy();
    }
  });
});
