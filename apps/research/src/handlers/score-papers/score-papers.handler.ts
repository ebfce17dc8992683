import { Inject, Injectable } from '@nestjs/common';
import { type MessageData, PapersScored, type ScorePapers } from '@openpaw/contracts';
import { answerOnceWith, type KeptReplyStore, type Reply, replyTo } from '@openpaw/messaging';
import type { ResearchSettings } from '../../config.js';
import { fitPapersToMessage } from '../../paper-search/papers/fit-papers-to-message.js';
import type { PaperSearchSkills } from '../../paper-search/skills/paper-search-skills.js';
import { RESEARCH_REPLIES, RESEARCH_SETTINGS, RESEARCH_SKILLS } from '../../ports.js';
import { type ResearchCommand, withSkillFailure } from '../research-command.js';

/** ScorePapers → PapersScored (best first, a rationale per paper), or PaperSearchStepFailed. */
@Injectable()
export class ScorePapersHandler {
  constructor(
    @Inject(RESEARCH_SKILLS) private readonly skills: PaperSearchSkills,
    @Inject(RESEARCH_REPLIES) private readonly replies: KeptReplyStore,
    @Inject(RESEARCH_SETTINGS) private readonly settings: ResearchSettings,
  ) {}

  execute(command: ResearchCommand<MessageData<typeof ScorePapers>>): Promise<Reply> {
    const { data } = command;
    return answerOnceWith(this.replies, command.commandId, () =>
      withSkillFailure(command, 'score', this.settings.stepDeadlineMs, async (signal) => {
        const { papers, provenance } = await this.skills.scorer.score({ query: data.query, intent: data.intent, strategy: data.strategy, papers: data.papers }, { signal });
        const fitted = fitPapersToMessage(papers);
        return replyTo(command.commandId, PapersScored, { runId: data.runId, commandId: command.commandId, iteration: data.iteration, papers: fitted.papers, provenance, cuts: fitted.cuts });
      }),
    );
  }
}
