import { freshDatabase } from '@openpaw/testing';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { openDatabase } from './data-source.js';

/** How many times each migration below began; reset per test. */
const began = { interrupted: 0, broken: 0 };

/**
 * The first time it runs, PostgreSQL terminates its connection mid-migration, as an immediate stop
 * or a failover does (SQLSTATE 57P01, "terminating connection due to administrator command").
 */
class CreateGadgetsInterrupted1700000000000 implements MigrationInterface {
  name = 'CreateGadgetsInterrupted1700000000000';
  async up(runner: QueryRunner): Promise<void> {
    began.interrupted += 1;
    if (began.interrupted === 1) await runner.query('select pg_terminate_backend(pg_backend_pid())');
    await runner.query('create table gadgets (id int primary key)');
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query('drop table gadgets');
  }
}

/** A genuine bug: not a reason to wait. */
class BrokenMigration1700000000000 implements MigrationInterface {
  name = 'BrokenMigration1700000000000';
  async up(runner: QueryRunner): Promise<void> {
    began.broken += 1;
    await runner.query('create tabel nope (id int)');
  }
  async down(): Promise<void> {}
}

describe('openDatabase: PostgreSQL going away mid-start (real PostgreSQL)', () => {
  beforeEach(() => {
    began.interrupted = 0;
    began.broken = 0;
  });

  it('a migration whose connection is terminated is retried on a fresh connection, and the service starts', async () => {
    const url = await freshDatabase('open-interrupted');
    const retries: string[] = [];
    const dataSource = await openDatabase({
      url,
      schema: 'gadgets',
      migrations: [CreateGadgetsInterrupted1700000000000],
      migrationMode: 'run',
      waitForDatabase: { onRetry: (_attempt, error) => retries.push(error.message) },
    });
    try {
      expect(retries).toHaveLength(1);
      expect(retries[0]).toMatch(/terminating connection due to administrator command/);
      expect(began.interrupted).toBe(2);
      expect(await dataSource.query('select count(*)::int as n from gadgets')).toEqual([{ n: 0 }]);
    } finally {
      await dataSource.destroy();
    }
  });

  it('a migration that fails for any other reason fails the start at once, naming the error', async () => {
    const url = await freshDatabase('open-broken');
    const retries: string[] = [];
    await expect(
      openDatabase({
        url,
        schema: 'broken',
        migrations: [BrokenMigration1700000000000],
        migrationMode: 'run',
        waitForDatabase: { onRetry: (_attempt, error) => retries.push(error.message) },
      }),
    ).rejects.toThrow(/syntax error at or near "tabel"/);
    expect(retries).toEqual([]);
    expect(began.broken).toBe(1);
  });
});
