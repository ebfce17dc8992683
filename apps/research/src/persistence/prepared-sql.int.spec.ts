import { ResearchTitleGenerated } from '@openpaw/contracts';
import { PgKeptReplyStore, replyTo } from '@openpaw/messaging';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { openResearchDatabase } from './database.js';
import { preparedSqlRunner } from '@openpaw/persistence';

describe('preparedSqlRunner (real PostgreSQL)', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openResearchDatabase({ databaseUrl: await freshDatabase('research_prepared_sql'), poolSize: 2 });
  });
  afterAll(async () => {
    await dataSource.destroy();
  });

  it('keeps and finds replies as the kept-reply store over the data source does (the first answer wins)', async () => {
    const prepared = new PgKeptReplyStore(preparedSqlRunner(dataSource, 'spec_replies'), 'research');
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
});
