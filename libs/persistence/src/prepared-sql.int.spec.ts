import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { createDataSource } from './data-source.js';
import { preparedSql } from './prepared-sql.js';

describe('preparedSql (real PostgreSQL)', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = createDataSource({ url: await freshDatabase('prepared_sql'), schema: 'public', poolSize: 2 });
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
});
