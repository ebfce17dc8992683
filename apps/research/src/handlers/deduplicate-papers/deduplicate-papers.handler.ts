import { Inject, Injectable } from '@nestjs/common';
import { type DeduplicatePapers, deterministicUuid, type MessageData, PapersDeduplicated } from '@openpaw/contracts';
import { deduplicate } from '../../paper-search/dedup/deduplicate.js';
import { excludeRejected } from '../../paper-search/dedup/exclude-rejected.js';
import { RESEARCH_REPLIES, type ReplyStore, type ResearchReply } from '../../ports.js';
import { answerOnce, type ResearchCommand } from '../answer-once.js';

/** DeduplicatePapers → PapersDeduplicated: merged duplicates, and papers the user rejected left out. */
@Injectable()
export class DeduplicatePapersHandler {
  constructor(@Inject(RESEARCH_REPLIES) private readonly replies: ReplyStore) {}

  execute(command: ResearchCommand<MessageData<typeof DeduplicatePapers>>): Promise<ResearchReply> {
    const { data } = command;
    return answerOnce(this.replies, command.commandId, () => {
      const { papers: merged, duplicatesMerged } = deduplicate(data.papers);
      const { kept, excluded } = excludeRejected(merged, data.excludePaperIds);
      return Promise.resolve({
        kind: 'deduplicated',
        id: deterministicUuid(command.commandId, PapersDeduplicated.subject),
        data: { runId: data.runId, commandId: command.commandId, iteration: data.iteration, papers: kept, duplicatesMerged, rejectedExcluded: excluded },
      });
    });
  }
}
