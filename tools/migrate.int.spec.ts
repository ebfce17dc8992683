import { createDataSource, pendingMigrations, serviceRoleName } from '@openpaw/persistence';
import pg from 'pg';
import { createDatabase, freshDatabase, startPostgresServer } from '@openpaw/testing';
import { migrateAll, schemasToMigrate } from './migrate.js';

describe('migrations Job on real PostgreSQL', () => {
  it('leaves every declared schema with no pending migration, research and its command_replies included', async () => {
    const url = await freshDatabase('migrate_job');
    const schemas = await schemasToMigrate();
    const lines: string[] = [];
    await migrateAll(url, schemas, { log: (line) => lines.push(line) });
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
      await migrateAll(url, schemas, { log: (line) => again.push(line) });
      expect(again.every((line) => line.endsWith('up to date'))).toBe(true);
    } finally {
      await probe.destroy();
    }
  });

  it('with per-service roles, a service role reads and writes its own schema only: no other schema, no DDL', async () => {
    const url = await freshDatabase('migrate_roles');
    const schemas = await schemasToMigrate();
    const lines: string[] = [];
    await migrateAll(url, schemas, { serviceRoles: true, log: (line) => lines.push(line) });
    expect(lines.filter((line) => line.includes(' role '))).toEqual(schemas.map(({ schema }) => `migrate: role ${serviceRoleName(schema)} may read and write ${schema} only`));
    const asRole = (role: string): string => {
      const u = new URL(url);
      u.username = role;
      return u.toString();
    };
    const owner = new pg.Client({ connectionString: url });
    const solve = new pg.Client({ connectionString: asRole(serviceRoleName('solve')) });
    await Promise.all([owner.connect(), solve.connect()]);
    const refusal = (sql: string): Promise<unknown> => solve.query(sql).then(() => 'allowed', (error: { code?: string }) => error.code);
    try {
      expect((await solve.query<{ search_path: string }>('show search_path')).rows[0]?.search_path).toBe('solve');
      // Its own tables: every row privilege, unqualified names resolve in its schema.
      expect((await solve.query<{ ok: boolean }>(`select has_table_privilege('solve.migrations', 'select, insert, update, delete') as ok`)).rows[0]?.ok).toBe(true);
      expect(await refusal('select count(*) from migrations')).toBe('allowed');
      // 42501 insufficient_privilege: another service's schema, and any DDL.
      for (const other of schemas.map(({ schema }) => schema).filter((schema) => schema !== 'solve')) expect({ other, code: await refusal(`select count(*) from "${other}".migrations`) }).toEqual({ other, code: '42501' });
      expect(await refusal('create table solve.sneaky (id int)')).toBe('42501');
      expect(await refusal('drop table solve.migrations')).toBe('42501');
      expect(await refusal('create schema sneaky')).toBe('42501');
      // A table a later migration creates is granted through default privileges, without re-running the grants.
      await owner.query('create table solve.added_later (id int)');
      expect(await refusal('insert into added_later values (1)')).toBe('allowed');
      // A retried Job repeats the grants harmlessly.
      await migrateAll(url, schemas, { serviceRoles: true, log: () => undefined });
    } finally {
      await Promise.all([owner.end(), solve.end()]);
    }
  });

  it('gives every service role the local stack\'s password (OPENPAW_DATABASE_ROLE_PASSWORD) on a PostgreSQL that asks for one', async () => {
    // The postgres image asks every role for a password, as docker-compose.yml runs it; a quote tests the literal.
    const postgres = await startPostgresServer({ passwordAuth: true });
    const password = "compose's-password";
    try {
      const url = await createDatabase(postgres.adminUrl, 'migrate_role_password');
      const schemas = await schemasToMigrate();
      await migrateAll(url, schemas, { serviceRoles: true, rolePassword: password, log: () => undefined });
      const login = async (role: string, secret: string): Promise<unknown> => {
        const client = new pg.Client({ connectionString: `postgres://${role}:${encodeURIComponent(secret)}@${postgres.host}:${postgres.port}/migrate_role_password` });
        client.on('error', () => undefined);
        try {
          await client.connect();
          return (await client.query<{ search_path: string }>('show search_path')).rows[0]?.search_path;
        } catch (error) {
          return (error as { code?: string }).code;
        } finally {
          await client.end().catch(() => undefined);
        }
      };
      for (const { schema } of schemas) expect({ schema, login: await login(serviceRoleName(schema), password) }).toEqual({ schema, login: schema });
      expect(await login(serviceRoleName('solve'), 'not-the-password')).toBe('28P01');
    } finally {
      await postgres.dispose();
    }
  });
});
