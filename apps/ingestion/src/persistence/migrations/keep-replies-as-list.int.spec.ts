import { deterministicUuid, MediaRejected } from '@openpaw/contracts';
import { PgKeptReplyStore } from '@openpaw/messaging';
import { openDatabase } from '@openpaw/persistence';
import { freshDatabase } from '@openpaw/testing';
import { CreateCommandReplies1764100000000 } from './1764100000000-create-command-replies.js';
import { KeepRepliesAsList1764400000000 } from './1764400000000-keep-replies-as-list.js';

describe('KeepRepliesAsList1764400000000 (real PostgreSQL)', () => {
  it('carries a reply kept before it over: a redelivery still gets it, same id and data', async () => {
    const url = await freshDatabase('ingestion_kept_replies');
    const commandId = crypto.randomUUID();
    const id = deterministicUuid(commandId, MediaRejected.subject);
    const data = { runId: crypto.randomUUID(), commandId, reason: 'too_large', detail: 'upload of 9 bytes, limit 8' };
    const before = await openDatabase({ url, schema: 'ingestion', migrations: [CreateCommandReplies1764100000000] });
    await before.query(`insert into ingestion.command_replies (command_id, reply_type, reply) values ($1, 'MediaRejected', $2)`, [
      commandId,
      JSON.stringify({ type: 'MediaRejected', id, data }),
    ]);
    await before.destroy();

    // Up to the migration under test, so undoing the last one undoes it (later migrations are not its concern).
    const after = await openDatabase({ url, schema: 'ingestion', migrations: [CreateCommandReplies1764100000000, KeepRepliesAsList1764400000000] });
    try {
      expect(await new PgKeptReplyStore(after, 'ingestion').find(commandId)).toEqual([{ message: MediaRejected, id, data }]);
      await after.undoLastMigration();
      const [row] = await after.query<{ reply_type: string; reply: unknown }[]>(`select reply_type, reply from ingestion.command_replies where command_id = $1`, [commandId]);
      expect(row).toEqual({ reply_type: 'MediaRejected', reply: { type: 'MediaRejected', id, data } });
    } finally {
      await after.destroy();
    }
  });
});
