import { ResearchTitleGenerated } from '@openpaw/contracts';
import { PgKeptReplyStore, replyTo } from '@openpaw/messaging';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { openResearchDatabase } from './database.js';
import { preparedSql } from './prepared-sql.js';

describe('preparedSql (real PostgreSQL)', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openResearchDatabase({ databaseUrl: await freshDatabase('research_prepared_sql'), poolSize: 2 });
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

  it('keeps and finds replies as the kept-reply store over the data source does (the first answer wins)', async () => {
    const prepared = new PgKeptReplyStore(preparedSql(dataSource, 'spec_replies'), 'research');
    const plain = new PgKeptReplyStore(dataSource, 'research');
    const commandId = crypto.randomUUID();
    const runId = crypto.randomUUID();
    const first = replyTo(commandId, ResearchTitleGenerated, { runId, commandId, title: 'Heat pumps', source: 'fallback', model: null });
    const second = replyTo(commandId, ResearchTitleGenerated, { runId, commandId, title: 'Another title', source: 'fallback', model: null });

    expect(await prepared.find(commandId)).toBeUndefined();
    expect(await prepared.keep(commandId, [first])).toEqual([first]);
    expect(await prepared.keep(commandId, [second])).toEqual([first]);
    expect(await prepared.find(commandId)).toEqual([first]);
    expect(await plain.find(commandId)).toEqual([first]);
  });

  it('fails like the data source on bad SQL, and the connection goes back to the pool', async () => {
    const sql = preparedSql(dataSource, 'spec_errors');
    await expect(sql.query('select * from research.no_such_table')).rejects.toThrow(/no_such_table/);
    // The pool has 2 connections: a leaked one per failure would exhaust it.
    for (let i = 0; i < 4; i++) await expect(sql.query('select * from research.no_such_table')).rejects.toThrow(/no_such_table/);
    expect(await sql.query('select 1 as one')).toEqual([{ one: 1 }]);
  });
});
