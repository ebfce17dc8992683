import { createDataSource, pendingMigrations } from '@openpaw/persistence';
import { freshDatabase } from '@openpaw/testing';
import { migrateAll, schemasToMigrate } from './migrate.js';

describe('migrations Job on real PostgreSQL', () => {
  it('leaves every declared schema with no pending migration, research and its command_replies included', async () => {
    const url = await freshDatabase('migrate_job');
    const schemas = await schemasToMigrate();
    const lines: string[] = [];
    await migrateAll(url, schemas, (line) => lines.push(line));
    expect(lines).toHaveLength(schemas.length);
    const probe = createDataSource({ url, schema: 'public', poolSize: 1 });
    await probe.initialize();
    try {
      for (const { schema, migrations } of schemas) expect({ schema, pending: await pendingMigrations(probe, schema, migrations) }).toEqual({ schema, pending: [] });
      // The retention CronJob prunes research.command_replies: it exists once the Job ran.
      const [row] = await probe.query<{ table: string | null }[]>(`select to_regclass('research.command_replies')::text as table`);
      expect(row?.table).toBe('research.command_replies');
      // A second Job (retried or doubled) finds nothing to do.
      const again: string[] = [];
      await migrateAll(url, schemas, (line) => again.push(line));
      expect(again.every((line) => line.endsWith('up to date'))).toBe(true);
    } finally {
      await probe.destroy();
    }
  });
});
