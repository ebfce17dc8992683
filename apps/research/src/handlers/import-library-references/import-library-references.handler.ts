import { Inject, Injectable } from '@nestjs/common';
import { type ImportLibraryReferences, LibraryReferencesImported, type MessageData } from '@openpaw/contracts';
import { answerOnceWith, type KeptReplyStore, type Reply, replyTo } from '@openpaw/messaging';
import { readLibraryFile } from '../../library/read-library-file.js';
import { type LibraryStore, RESEARCH_LIBRARY, RESEARCH_REPLIES } from '../../ports.js';
import type { ResearchCommand } from '../research-command.js';

/** ImportLibraryReferences → LibraryReferencesImported: BibTeX or RIS into the user's library. */
@Injectable()
export class ImportLibraryReferencesHandler {
  constructor(
    @Inject(RESEARCH_LIBRARY) private readonly library: LibraryStore,
    @Inject(RESEARCH_REPLIES) private readonly replies: KeptReplyStore,
  ) {}

  execute(command: ResearchCommand<MessageData<typeof ImportLibraryReferences>>): Promise<Reply> {
    const { data } = command;
    return answerOnceWith(this.replies, command.commandId, async () => {
      const { references, skipped } = readLibraryFile(data.format, data.content);
      const { added, updated } = await this.library.upsert(data.userId, references);
      return replyTo(command.commandId, LibraryReferencesImported, { importId: data.importId, commandId: command.commandId, userId: data.userId, added, updated, skipped: skipped.slice(0, 1_000) });
    });
  }
}
