import { Inject, Injectable } from '@nestjs/common';
import { type MessageData, paper, PapersScored, type ScorePapers } from '@openpaw/contracts';
import { answerOnceWith, type KeptReplyStore, type Reply, replyTo } from '@openpaw/messaging';
import type { ResearchSettings } from '../../config.js';
import { PaperSets } from '../../paper-search/papers/paper-sets.js';
import type { PaperSearchSkills } from '../../paper-search/skills/paper-search-skills.js';
import { RESEARCH_PAPER_SETS, RESEARCH_REPLIES, RESEARCH_SETTINGS, RESEARCH_SKILLS } from '../../ports.js';
import { type ResearchCommand, withSkillFailure } from '../research-command.js';

/** ScorePapers → PapersScored (best first, a rationale per paper), or PaperSearchStepFailed; papers in and out by reference as `PaperSets` says. */
@Injectable()
export class ScorePapersHandler {
  constructor(
    @Inject(RESEARCH_SKILLS) private readonly skills: PaperSearchSkills,
    @Inject(RESEARCH_REPLIES) private readonly replies: KeptReplyStore,
    @Inject(RESEARCH_SETTINGS) private readonly settings: ResearchSettings,
    @Inject(RESEARCH_PAPER_SETS) private readonly paperSets: PaperSets,
  ) {}

  execute(command: ResearchCommand<MessageData<typeof ScorePapers>>): Promise<Reply> {
    const { data } = command;
    return answerOnceWith(this.replies, command.commandId, () =>
      withSkillFailure(command, 'score', this.settings.stepDeadlineMs, async (signal) => {
        const papers = await this.paperSets.in(data, paper);
        const scored = await this.skills.scorer.score({ query: data.query, intent: data.intent, strategy: data.strategy, papers }, { signal });
        const out = await this.paperSets.out(data.runId, command.commandId, scored.papers, data.papersByReference);
        return replyTo(command.commandId, PapersScored, {
          runId: data.runId,
          commandId: command.commandId,
          iteration: data.iteration,
          papers: out.papers,
          ...(out.papersRef === undefined ? {} : { papersRef: out.papersRef }),
          provenance: scored.provenance,
          cuts: out.cuts,
        });
      }),
    );
  }
}
