import { Inject, Injectable } from '@nestjs/common';
import { type DeduplicatePapers, type MessageData, PapersDeduplicated } from '@openpaw/contracts';
import { answerOnceWith, type KeptReplyStore, type Reply, replyTo } from '@openpaw/messaging';
import { deduplicate } from '../../paper-search/dedup/deduplicate.js';
import { excludeRejected } from '../../paper-search/dedup/exclude-rejected.js';
import { RESEARCH_REPLIES } from '../../ports.js';
import type { ResearchCommand } from '../research-command.js';

/** DeduplicatePapers → PapersDeduplicated: merged duplicates (earlier iterations' papers keep their ids), and papers the user rejected left out. */
@Injectable()
export class DeduplicatePapersHandler {
  constructor(@Inject(RESEARCH_REPLIES) private readonly replies: KeptReplyStore) {}

  execute(command: ResearchCommand<MessageData<typeof DeduplicatePapers>>): Promise<Reply> {
    const { data } = command;
    return answerOnceWith(this.replies, command.commandId, () => {
      const { papers: merged, duplicatesMerged, earlierIds } = deduplicate(data.papers, data.knownPapers ?? []);
      const { kept, excluded } = excludeRejected(merged, data.excludePaperIds, earlierIds);
      return Promise.resolve(replyTo(command.commandId, PapersDeduplicated, { runId: data.runId, commandId: command.commandId, iteration: data.iteration, papers: kept, duplicatesMerged, rejectedExcluded: excluded }));
    });
  }
}
