import { AssetVersionCreated, deterministicUuid, ProblemRegistered } from '@openpaw/contracts';
import { PgKeptReplyStore } from '@openpaw/messaging';
import { openDatabase } from '@openpaw/persistence';
import { freshDatabase } from '@openpaw/testing';
import { CreateAssetRegistry1764000000001 } from './1764000000001-create-asset-registry.js';
import { assetsMigrations } from './index.js';

describe('KeepRepliesBySubject1764400000000 (real PostgreSQL)', () => {
  it('carries replies kept before it over, in order: a redelivery still gets them, same ids and data', async () => {
    const url = await freshDatabase('assets_kept_replies');
    const commandId = crypto.randomUUID();
    const runId = crypto.randomUUID();
    const problemId = crypto.randomUUID();
    const registered = { runId, commandId, problemId, created: true };
    const created = {
      runId,
      commandId,
      problemId,
      assetVersionId: crypto.randomUUID(),
      assetType: 'solution_html',
      version: 1,
      storageKey: 'solutions/x.html',
      contentType: 'text/html; charset=utf-8',
    };
    const stored = [
      { type: 'ProblemRegistered', id: deterministicUuid(commandId, ProblemRegistered.subject), data: registered },
      { type: 'AssetVersionCreated', id: deterministicUuid(commandId, AssetVersionCreated.subject), data: created },
    ];
    const before = await openDatabase({ url, schema: 'assets', migrations: [CreateAssetRegistry1764000000001] });
    await before.query(`insert into assets.command_replies (command_id, replies) values ($1, $2)`, [commandId, JSON.stringify(stored)]);
    await before.destroy();

    const after = await openDatabase({ url, schema: 'assets', migrations: assetsMigrations });
    try {
      expect(await new PgKeptReplyStore(after, 'assets').find(commandId)).toEqual([
        { message: ProblemRegistered, id: stored[0]?.id, data: registered },
        { message: AssetVersionCreated, id: stored[1]?.id, data: created },
      ]);
      await after.undoLastMigration();
      const [row] = await after.query<{ replies: unknown }[]>(`select replies from assets.command_replies where command_id = $1`, [commandId]);
      expect(row?.replies).toEqual(stored);
    } finally {
      await after.destroy();
    }
  });
});
