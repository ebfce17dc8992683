import { ChatFailed, deterministicUuid } from '@openpaw/contracts';
import { PgKeptReplyStore } from '@openpaw/messaging';
import { openDatabase } from '@openpaw/persistence';
import { freshDatabase } from '@openpaw/testing';
import { CreateArtifactsSchema1764100000000 } from './1764100000000-create-artifacts-schema.js';
import { artifactsMigrations } from './index.js';

describe('KeepReplyIds1764400000000 (real PostgreSQL)', () => {
  it('carries replies kept before it over with the ids they were published with; down restores the old rows', async () => {
    const url = await freshDatabase('artifacts_kept_replies');
    const commandId = crypto.randomUUID();
    const data = { commandId, notebookId: crypto.randomUUID(), errorCode: 'llm_unavailable', error: 'the model is down' };
    const stored = [{ subject: ChatFailed.subject, data }];
    const before = await openDatabase({ url, schema: 'artifacts', migrations: [CreateArtifactsSchema1764100000000] });
    await before.query(`insert into artifacts.command_replies (command_id, subject, replies) values ($1, $2, $3)`, [commandId, ChatFailed.subject, JSON.stringify(stored)]);
    await before.destroy();

    const after = await openDatabase({ url, schema: 'artifacts', migrations: artifactsMigrations });
    try {
      expect(await new PgKeptReplyStore(after, 'artifacts').find(commandId)).toEqual([{ message: ChatFailed, id: deterministicUuid(commandId, ChatFailed.subject), data }]);
      await after.undoLastMigration();
      const [row] = await after.query<{ subject: string; replies: unknown }[]>(`select subject, replies from artifacts.command_replies where command_id = $1`, [commandId]);
      expect(row).toEqual({ subject: ChatFailed.subject, replies: stored });
    } finally {
      await after.destroy();
    }
  });
});
