import { Inject, Injectable } from '@nestjs/common';
import { deterministicUuid, type ImportLibraryReferences, LibraryReferencesImported, type MessageData } from '@openpaw/contracts';
import { readLibraryFile } from '../../library/read-library-file.js';
import { type LibraryStore, RESEARCH_LIBRARY, RESEARCH_REPLIES, type ReplyStore, type ResearchReply } from '../../ports.js';
import { answerOnce, type ResearchCommand } from '../answer-once.js';

/** ImportLibraryReferences → LibraryReferencesImported: BibTeX or RIS into the user's library. */
@Injectable()
export class ImportLibraryReferencesHandler {
  constructor(
    @Inject(RESEARCH_LIBRARY) private readonly library: LibraryStore,
    @Inject(RESEARCH_REPLIES) private readonly replies: ReplyStore,
  ) {}

  execute(command: ResearchCommand<MessageData<typeof ImportLibraryReferences>>): Promise<ResearchReply> {
    const { data } = command;
    return answerOnce(this.replies, command.commandId, async () => {
      const { references, skipped } = readLibraryFile(data.format, data.content);
      const { added, updated } = await this.library.upsert(data.userId, references);
      return {
        kind: 'library_imported',
        id: deterministicUuid(command.commandId, LibraryReferencesImported.subject),
        data: { importId: data.importId, commandId: command.commandId, userId: data.userId, added, updated, skipped: skipped.slice(0, 1_000) },
      };
    });
  }
}
