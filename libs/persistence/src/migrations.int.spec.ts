import { freshDatabase } from '@openpaw/testing';
import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { createDataSource, openDatabase } from './data-source.js';
import { migrateWithLock, migrationModeFromEnv, pendingMigrations, verifySchema } from './migrations.js';

/** Slow on purpose, so concurrent migrators overlap; fails if it runs twice (the table exists). */
class CreateWidgets1700000000000 implements MigrationInterface {
  name = 'CreateWidgets1700000000000';
  async up(runner: QueryRunner): Promise<void> {
    await runner.query('select pg_sleep(0.3)');
    await runner.query('create table "mig"."widgets" (id int primary key)');
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query('drop table "mig"."widgets"');
  }
}

class AddWidgetName1700000000001 implements MigrationInterface {
  name = 'AddWidgetName1700000000001';
  async up(runner: QueryRunner): Promise<void> {
    await runner.query('alter table "mig"."widgets" add column name text');
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query('alter table "mig"."widgets" drop column name');
  }
}

const MIGRATIONS = [CreateWidgets1700000000000, AddWidgetName1700000000001];

describe('migrations: one migrator at a time, services verify (real PostgreSQL)', () => {
  let url: string;
  const opened: DataSource[] = [];
  const source = async (poolSize = 4): Promise<DataSource> => {
    const ds = createDataSource({ url, schema: 'mig', migrations: MIGRATIONS, poolSize });
    await ds.initialize();
    opened.push(ds);
    return ds;
  };

  beforeAll(async () => {
    url = await freshDatabase('migrations');
  });

  afterAll(async () => {
    await Promise.all(opened.map((ds) => ds.destroy()));
  });

  it('a verifying service waits for the migrator, then starts; it fails naming what is missing when nobody migrates', async () => {
    const service = await source();
    await expect(verifySchema(service, 'mig', MIGRATIONS, { waitMs: 300, pollMs: 50 })).rejects.toThrow(
      'schema mig lacks migrations CreateWidgets1700000000000, AddWidgetName1700000000001: run the migrations Job',
    );
    const waits: string[][] = [];
    const verified = verifySchema(service, 'mig', MIGRATIONS, { waitMs: 20_000, pollMs: 50, onWaiting: (p) => waits.push([...p]) });

    // Three migrators at once (the Job retried, and two services in run mode): one applies, the others find nothing to do.
    const migrators = await Promise.all([source(1), source(1), source(1)]);
    const applied = await Promise.all(migrators.map((ds) => migrateWithLock(ds, 'mig')));
    expect(applied.flat().sort()).toEqual(['AddWidgetName1700000000001', 'CreateWidgets1700000000000']);
    expect(applied.filter((names) => names.length > 0)).toHaveLength(1);

    await verified;
    expect(waits.length).toBeGreaterThan(0);
    expect(await pendingMigrations(service, 'mig', MIGRATIONS)).toEqual([]);
  });

  it('a service running an older release accepts a schema ahead of it; openDatabase in verify mode never migrates', async () => {
    const service = await source();
    expect(await pendingMigrations(service, 'mig', [CreateWidgets1700000000000])).toEqual([]);

    const other = await freshDatabase('migrations_verify');
    await expect(openDatabase({ url: other, schema: 'mig', migrations: MIGRATIONS, migrationMode: 'verify', migrationWaitMs: 100 })).rejects.toThrow(
      'lacks migrations',
    );
    const dev = await openDatabase({ url: other, schema: 'mig', migrations: MIGRATIONS, migrationMode: 'run' });
    opened.push(dev);
    const verifying = await openDatabase({ url: other, schema: 'mig', migrations: MIGRATIONS, migrationMode: 'verify', migrationWaitMs: 100 });
    opened.push(verifying);
    expect(await verifying.query('select count(*)::int as n from "mig"."widgets"')).toEqual([{ n: 0 }]);
  });

  it('reads the mode from OPENPAW_MIGRATIONS', () => {
    expect(migrationModeFromEnv({})).toBe('run');
    expect(migrationModeFromEnv({ OPENPAW_MIGRATIONS: 'verify' })).toBe('verify');
    expect(() => migrationModeFromEnv({ OPENPAW_MIGRATIONS: 'maybe' })).toThrow('OPENPAW_MIGRATIONS');
  });
});
