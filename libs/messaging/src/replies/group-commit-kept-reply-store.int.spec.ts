import { DocumentIndexed } from '@openpaw/contracts';
import { openDatabase } from '@openpaw/persistence';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { GroupCommitKeptReplyStore } from './group-commit-kept-reply-store.js';
import { isPermanentDatabaseError } from './group-commit.js';
import { keptRepliesTableDdl, type SqlRunner } from './pg-kept-reply-store.js';
import { replyTo, type Reply } from './reply.js';

const SCHEMA = 'grouped';

class CreateKeptReplies1700000000000 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    await runner.query(keptRepliesTableDdl(SCHEMA));
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`drop table "${SCHEMA}"."command_replies"`);
  }
}

const RUN_ID = '00000000-0000-4000-8000-000000000001';
const PROBLEM_ID = '00000000-0000-4000-8000-000000000002';

function indexed(commandId: string): Reply {
  return replyTo(commandId, DocumentIndexed, { runId: RUN_ID, commandId: crypto.randomUUID(), assetVersionId: crypto.randomUUID(), problemId: PROBLEM_ID });
}

describe('group-commit kept replies (real PostgreSQL)', () => {
  let dataSource: DataSource;
  const statements: string[] = [];
  let store: GroupCommitKeptReplyStore;

  beforeAll(async () => {
    dataSource = await openDatabase({ url: await freshDatabase('messaging_group_replies'), schema: SCHEMA, migrations: [CreateKeptReplies1700000000000] });
    const counting: SqlRunner = {
      query: <T>(sql: string, parameters?: unknown[]) => {
        statements.push(sql.trim().split(/\s+/)[0] ?? '');
        return dataSource.query<T>(sql, parameters);
      },
    };
    store = new GroupCommitKeptReplyStore(counting, SCHEMA);
  });

  afterAll(async () => {
    await dataSource.destroy();
  });

  beforeEach(() => {
    statements.length = 0;
  });

  it('looks up and keeps the replies of concurrent deliveries in one statement each', async () => {
    const ids = Array.from({ length: 20 }, () => crypto.randomUUID());
    expect(await Promise.all(ids.map((id) => store.find(id)))).toEqual(ids.map(() => undefined));
    expect(statements).toEqual(['select']);
    const replies = ids.map((id) => [indexed(id)]);
    expect(await Promise.all(ids.map((id, i) => store.keep(id, replies[i] ?? [])))).toEqual(replies);
    expect(statements).toEqual(['select', 'insert']);
    expect(await Promise.all(ids.map((id) => store.find(id)))).toEqual(replies);
  });

  it('keeps the first answer, across batches and within one', async () => {
    const commandId = crypto.randomUUID();
    const first = [indexed(commandId)];
    expect(await store.keep(commandId, first)).toEqual(first);
    const [again, twice] = await Promise.all([store.keep(commandId, [indexed(commandId)]), store.keep(commandId, [indexed(commandId)])]);
    expect(again).toEqual(first);
    expect(twice).toEqual(first);

    const fresh = crypto.randomUUID();
    const [winner, loser] = await Promise.all([store.keep(fresh, [indexed(fresh)]), store.keep(fresh, [indexed(fresh)])]);
    expect(loser).toEqual(winner);
    expect(await store.find(fresh)).toEqual(winner);
  });

  it('fails a poison keep alone, with its reason; the rest of its batch is kept', async () => {
    const good = [crypto.randomUUID(), crypto.randomUUID()];
    // A NUL in a text key: PostgreSQL refuses it (class 22), whatever the retry.
    const poison = `${crypto.randomUUID()}\u0000`;
    const settled = await Promise.allSettled([store.keep(good[0] ?? '', [indexed(good[0] ?? '')]), store.keep(poison, [indexed(poison)]), store.keep(good[1] ?? '', [indexed(good[1] ?? '')])]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const refusal = settled[1]?.status === 'rejected' ? (settled[1].reason as unknown) : undefined;
    expect(isPermanentDatabaseError(refusal)).toBe(true);
    expect((await store.find(good[0] ?? ''))?.length).toBe(1);
    expect((await store.find(good[1] ?? ''))?.length).toBe(1);
  });
});
