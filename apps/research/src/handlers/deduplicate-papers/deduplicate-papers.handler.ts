import { Inject, Injectable } from '@nestjs/common';
import { type DeduplicatePapers, type MessageData, paper, PapersDeduplicated } from '@openpaw/contracts';
import { answerOnceWith, type KeptReplyStore, type Reply, replyTo } from '@openpaw/messaging';
import { deduplicate } from '../../paper-search/dedup/deduplicate.js';
import { excludeRejected } from '../../paper-search/dedup/exclude-rejected.js';
import { PaperSets } from '../../paper-search/papers/paper-sets.js';
import { RESEARCH_PAPER_SETS, RESEARCH_REPLIES, RESEARCH_SETTINGS } from '../../ports.js';
import type { ResearchSettings } from '../../config.js';
import { type ResearchCommand, withSkillFailure } from '../research-command.js';

/**
 * DeduplicatePapers → PapersDeduplicated: merged duplicates (earlier iterations' papers keep their ids), and papers the user rejected left out.
 * Papers are read from the stored set the command references, and stored again when it asks (`papersByReference`);
 * a stored set that is gone or corrupt answers PaperSearchStepFailed (`invalid_input`) at once.
 */
@Injectable()
export class DeduplicatePapersHandler {
  constructor(
    @Inject(RESEARCH_REPLIES) private readonly replies: KeptReplyStore,
    @Inject(RESEARCH_PAPER_SETS) private readonly paperSets: PaperSets,
    @Inject(RESEARCH_SETTINGS) private readonly settings: ResearchSettings,
  ) {}

  execute(command: ResearchCommand<MessageData<typeof DeduplicatePapers>>): Promise<Reply> {
    const { data } = command;
    return answerOnceWith(this.replies, command.commandId, () =>
      withSkillFailure(command, 'deduplicate', this.settings.stepDeadlineMs, async () => {
        const { papers: merged, duplicatesMerged, earlierIds } = deduplicate(await this.paperSets.in(data, paper), data.knownPapers ?? []);
        const { kept, excluded } = excludeRejected(merged, data.excludePaperIds, earlierIds);
        const out = await this.paperSets.out(data.runId, command.commandId, kept, data.papersByReference);
        return replyTo(command.commandId, PapersDeduplicated, {
          runId: data.runId,
          commandId: command.commandId,
          iteration: data.iteration,
          papers: out.papers,
          ...(out.papersRef === undefined ? {} : { papersRef: out.papersRef }),
          duplicatesMerged,
          rejectedExcluded: excluded,
        });
      }),
    );
  }
}
