import { deterministicUuid, DocumentIndexed } from '@openpaw/contracts';
import { PgKeptReplyStore } from '@openpaw/messaging';
import { openDatabase } from '@openpaw/persistence';
import { freshDatabase } from '@openpaw/testing';
import { CreateRetrievalIndex1764100000001 } from './1764100000001-create-retrieval-index.js';
import { AddMathsSignature1764300000000 } from './1764300000000-add-maths-signature.js';
import { KeepRepliesAsList1764400000000 } from './1764400000000-keep-replies-as-list.js';

describe('KeepRepliesAsList1764400000000 (real PostgreSQL)', () => {
  it('carries a reply kept before it over: a redelivery still gets it, same id and data', async () => {
    const url = await freshDatabase('retrieval_kept_replies');
    const commandId = crypto.randomUUID();
    const id = deterministicUuid(commandId, DocumentIndexed.subject);
    const data = { runId: crypto.randomUUID(), commandId, assetVersionId: crypto.randomUUID(), problemId: crypto.randomUUID() };
    const before = await openDatabase({ url, schema: 'retrieval', migrations: [CreateRetrievalIndex1764100000001, AddMathsSignature1764300000000] });
    await before.query(`insert into retrieval.command_replies (command_id, reply_type, reply) values ($1, 'DocumentIndexed', $2)`, [
      commandId,
      JSON.stringify({ type: 'DocumentIndexed', id, data }),
    ]);
    await before.destroy();

    // Up to this migration, so that undoing the last one undoes it (later migrations have their own specs).
    const after = await openDatabase({ url, schema: 'retrieval', migrations: [CreateRetrievalIndex1764100000001, AddMathsSignature1764300000000, KeepRepliesAsList1764400000000] });
    try {
      expect(await new PgKeptReplyStore(after, 'retrieval').find(commandId)).toEqual([{ message: DocumentIndexed, id, data }]);
      await after.undoLastMigration();
      const [row] = await after.query<{ reply_type: string; reply: unknown }[]>(`select reply_type, reply from retrieval.command_replies where command_id = $1`, [commandId]);
      expect(row).toEqual({ reply_type: 'DocumentIndexed', reply: { type: 'DocumentIndexed', id, data } });
    } finally {
      await after.destroy();
    }
  });
});
