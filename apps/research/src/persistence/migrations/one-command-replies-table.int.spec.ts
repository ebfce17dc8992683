import { deterministicUuid, LibraryReferencesImported, ResearchTitleGenerated } from '@openpaw/contracts';
import { PgKeptReplyStore } from '@openpaw/messaging';
import { openDatabase } from '@openpaw/persistence';
import { freshDatabase } from '@openpaw/testing';
import { CreateLibraryAndReplies1764100000000 } from './1764100000000-create-library-and-replies.js';
import { CreateResearchFlowReplies1764300000000 } from './1764300000000-create-research-flow-replies.js';
import { OneCommandRepliesTable1764400000000 } from './1764400000000-one-command-replies-table.js';

describe('OneCommandRepliesTable1764400000000 (real PostgreSQL)', () => {
  it('moves the replies of both old tables into command_replies: a redelivery still gets them; down splits them back', async () => {
    const url = await freshDatabase('research_kept_replies');
    const runId = crypto.randomUUID();
    const searchCommand = crypto.randomUUID();
    const flowCommand = crypto.randomUUID();
    const organised = { importId: crypto.randomUUID(), commandId: searchCommand, userId: 'user-1', added: 2, updated: 0, skipped: [] };
    const title = { runId, commandId: flowCommand, title: 'Heat pumps', source: 'fallback', model: null };
    const organisedReply = { kind: 'library_imported', id: deterministicUuid(searchCommand, LibraryReferencesImported.subject), data: organised };
    const titleReply = { kind: 'title', id: deterministicUuid(flowCommand, ResearchTitleGenerated.subject), data: title };
    const before = await openDatabase({ url, schema: 'research', migrations: [CreateLibraryAndReplies1764100000000, CreateResearchFlowReplies1764300000000] });
    await before.query(`insert into research.paper_search_replies (command_id, subject, reply) values ($1, $2, $3)`, [searchCommand, LibraryReferencesImported.subject, JSON.stringify(organisedReply)]);
    await before.query(`insert into research.research_flow_replies (command_id, subject, reply) values ($1, $2, $3)`, [flowCommand, ResearchTitleGenerated.subject, JSON.stringify(titleReply)]);
    await before.destroy();

    // Up to this migration, so that undoing the last one undoes it (later migrations have their own specs).
    const after = await openDatabase({
      url,
      schema: 'research',
      migrations: [CreateLibraryAndReplies1764100000000, CreateResearchFlowReplies1764300000000, OneCommandRepliesTable1764400000000],
    });
    try {
      const store = new PgKeptReplyStore(after, 'research');
      expect(await store.find(searchCommand)).toEqual([{ message: LibraryReferencesImported, id: organisedReply.id, data: organised }]);
      expect(await store.find(flowCommand)).toEqual([{ message: ResearchTitleGenerated, id: titleReply.id, data: title }]);
      await after.undoLastMigration();
      expect(await after.query(`select subject, reply from research.paper_search_replies`)).toEqual([{ subject: LibraryReferencesImported.subject, reply: organisedReply }]);
      expect(await after.query(`select subject, reply from research.research_flow_replies`)).toEqual([{ subject: ResearchTitleGenerated.subject, reply: titleReply }]);
    } finally {
      await after.destroy();
    }
  });
});
