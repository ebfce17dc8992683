import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { openResearchDatabase } from '../persistence/database.js';
import { PgBackgroundCalls } from './background-calls.js';

describe('PgBackgroundCalls (real PostgreSQL, the research schema migrated)', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openResearchDatabase({ databaseUrl: await freshDatabase('research_background_calls'), poolSize: 2 });
  });
  afterAll(async () => {
    await dataSource.destroy();
  });

  it('recalls what a leg kept, in another process too; the first id kept for a command stays; another command has none', async () => {
    const pod = new PgBackgroundCalls(dataSource);
    expect(await pod.for('cmd-1').recall()).toBeUndefined();
    await pod.for('cmd-1').keep('resp_first');
    // A racing delivery that created its own response does not displace the first.
    await pod.for('cmd-1').keep('resp_second');
    const replacement = new PgBackgroundCalls(dataSource);
    expect(await replacement.for('cmd-1').recall()).toBe('resp_first');
    expect(await replacement.for('cmd-2').recall()).toBeUndefined();
  });
});
