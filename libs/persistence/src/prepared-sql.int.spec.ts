import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { createDataSource } from './data-source.js';
import { preparedSql } from './prepared-sql.js';

describe('preparedSql (real PostgreSQL)', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    const url = await freshDatabase('prepared_sql');
    // Test servers run with synchronous_commit off; this database's sessions start with it on, so a
    // relaxed statement's setting leaking into its pooled connection would show.
    const admin = createDataSource({ url, schema: 'public', poolSize: 1 });
    await admin.initialize();
    await admin.query(`do $$ begin execute format('alter database %I set synchronous_commit = on', current_database()); end $$`);
    await admin.destroy();
    dataSource = createDataSource({ url, schema: 'public', poolSize: 2 });
    await dataSource.initialize();
  });
  afterAll(async () => {
    await dataSource.destroy();
  });

  it('answers like the data source: the rows of a select, its parameters bound on every call', async () => {
    const sql = preparedSql(dataSource, 'spec');
    for (const n of [1, 2, 3]) {
      expect(await sql.query('select $1::int * 2 as doubled', [n])).toEqual(await dataSource.query('select $1::int * 2 as doubled', [n]));
    }
    expect(await sql.query('select 1 as one where false')).toEqual([]);
  });

  it('names each statement once per text, so two texts under one prefix never share a name', async () => {
    const sql = preparedSql(dataSource, 'spec_names');
    // The same connection sees both texts: a shared name would answer the first statement's rows.
    expect(await sql.query('select $1::text as a', ['x'])).toEqual([{ a: 'x' }]);
    expect(await sql.query('select $1::int + 1 as b', [1])).toEqual([{ b: 2 }]);
    expect(await sql.query('select $1::text as a', ['y'])).toEqual([{ a: 'y' }]);
  });

  it('fails like the data source on bad SQL, and the connection goes back to the pool', async () => {
    const sql = preparedSql(dataSource, 'spec_errors');
    await expect(sql.query('select * from no_such_table')).rejects.toThrow(/no_such_table/);
    // The pool has 2 connections: a leaked one per failure would exhaust it.
    for (let i = 0; i < 4; i++) await expect(sql.query('select * from no_such_table')).rejects.toThrow(/no_such_table/);
    expect(await sql.query('select 1 as one')).toEqual([{ one: 1 }]);
  });

  it("with synchronousCommit 'off', relaxes only its own statements' transactions, and leaves the pooled connection as it was", async () => {
    const relaxed = preparedSql(dataSource, 'spec_relaxed', { synchronousCommit: 'off' });
    const strict = preparedSql(dataSource, 'spec_strict');
    await dataSource.query('create table if not exists relaxed_rows (n int primary key)');
    // Every pooled connection (2) serves both in turn: a session-wide SET would leak into `strict`.
    for (let i = 0; i < 4; i++) {
      const [inside] = await relaxed.query<{ setting: string }>(
        "insert into relaxed_rows (n) values ($1) returning current_setting('synchronous_commit') as setting",
        [i],
      );
      expect(inside?.setting).toBe('off');
      expect(await strict.query("select current_setting('synchronous_commit') as setting")).toEqual([{ setting: 'on' }]);
    }
    // Committed: every row is there.
    expect(await strict.query('select count(*)::int as n from relaxed_rows')).toEqual([{ n: 4 }]);
  });

  it("with synchronousCommit 'off', a failing statement rolls its transaction back and frees the connection", async () => {
    const relaxed = preparedSql(dataSource, 'spec_relaxed_errors', { synchronousCommit: 'off' });
    await dataSource.query('create table if not exists relaxed_unique (n int primary key)');
    await relaxed.query('insert into relaxed_unique (n) values ($1)', [1]);
    for (let i = 0; i < 4; i++) {
      await expect(relaxed.query('insert into relaxed_unique (n) values ($1), ($2)', [2 + i, 1])).rejects.toThrow(/duplicate key/);
    }
    // Nothing of the failed statements stayed, and no connection was left inside a transaction.
    expect(await dataSource.query('select n from relaxed_unique order by n')).toEqual([{ n: 1 }]);
    expect(await dataSource.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'")).toEqual([{ n: 0 }]);
  });

  it("with synchronousCommit 'off', a connection that dies mid-statement fails that statement only; the next one runs on a new connection", async () => {
    const relaxed = preparedSql(dataSource, 'spec_relaxed_dies', { synchronousCommit: 'off' });
    const sleeping = relaxed.query('select pg_sleep(2), pg_backend_pid() as pid');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The relaxed writer's connections are its own: find the one running the sleep and end it.
    await dataSource.query(`select pg_terminate_backend(pid) from pg_stat_activity where query like 'select pg_sleep(2)%' and pid <> pg_backend_pid()`);
    await expect(sleeping).rejects.toThrow();
    expect(await relaxed.query('select 1 as one')).toEqual([{ one: 1 }]);
  });
});
