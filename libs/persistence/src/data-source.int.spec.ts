import { freshDatabase } from '@openpaw/testing';
import pg from 'pg';
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

describe('openDatabase behind a transaction pooler: search_path from the role (real PostgreSQL)', () => {
  class CreateWidgets1700000000000 implements MigrationInterface {
    name = 'CreateWidgets1700000000000';
    async up(runner: QueryRunner): Promise<void> {
      // Unqualified on purpose: it must land in the service's schema.
      await runner.query('create table widgets (id int primary key)');
    }
    async down(runner: QueryRunner): Promise<void> {
      await runner.query('drop table widgets');
    }
  }

  /** A login role of its own on the fresh database (roles are cluster-wide: a unique name). */
  async function roleUrl(adminUrl: string, searchPath: string | undefined): Promise<string> {
    const role = `svc_widgets_${process.pid}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      const database = new URL(adminUrl).pathname.slice(1);
      await admin.query(`create role ${role} login`);
      await admin.query(`grant create on database "${database}" to ${role}`);
      if (searchPath !== undefined) await admin.query(`alter role ${role} set search_path = ${searchPath}`);
    } finally {
      await admin.end();
    }
    const url = new URL(adminUrl);
    url.username = role;
    url.password = '';
    return url.toString();
  }

  it("sends no startup parameter and resolves unqualified names through the role's default", async () => {
    const url = await roleUrl(await freshDatabase('open-role'), 'widgets');
    const dataSource = await openDatabase({ url, schema: 'widgets', migrations: [CreateWidgets1700000000000], migrationMode: 'run', searchPath: 'role' });
    try {
      expect(dataSource.driver.options.extra).not.toHaveProperty('options');
      expect(await dataSource.query(`select table_schema from information_schema.tables where table_name = 'widgets'`)).toEqual([{ table_schema: 'widgets' }]);
      expect(await dataSource.query('select count(*)::int as n from widgets')).toEqual([{ n: 0 }]);
    } finally {
      await dataSource.destroy();
    }
  });

  it('refuses to start when the role has no such default, naming the ALTER ROLE that fixes it', async () => {
    const url = await roleUrl(await freshDatabase('open-role-missing'), undefined);
    await expect(openDatabase({ url, schema: 'widgets', migrations: [CreateWidgets1700000000000], migrationMode: 'run', searchPath: 'role' })).rejects.toThrow(
      /OPENPAW_DATABASE_SEARCH_PATH=role, but role "svc_widgets_[a-z0-9_]+" has search_path ""\$user", public"; set its default first: ALTER ROLE "svc_widgets_[a-z0-9_]+" SET search_path = widgets/,
    );
  });
});
