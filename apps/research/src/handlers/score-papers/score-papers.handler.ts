import { Inject, Injectable } from '@nestjs/common';
import { deterministicUuid, type MessageData, PapersScored, type ScorePapers } from '@openpaw/contracts';
import type { ResearchSettings } from '../../config.js';
import { fitPapersToMessage } from '../../paper-search/papers/fit-papers-to-message.js';
import type { PaperSearchSkills } from '../../paper-search/skills/paper-search-skills.js';
import { RESEARCH_REPLIES, RESEARCH_SETTINGS, RESEARCH_SKILLS, type ReplyStore, type ResearchReply } from '../../ports.js';
import { answerOnce, type ResearchCommand, withSkillFailure } from '../answer-once.js';

/** ScorePapers → PapersScored (best first, a rationale per paper), or PaperSearchStepFailed. */
@Injectable()
export class ScorePapersHandler {
  constructor(
    @Inject(RESEARCH_SKILLS) private readonly skills: PaperSearchSkills,
    @Inject(RESEARCH_REPLIES) private readonly replies: ReplyStore,
    @Inject(RESEARCH_SETTINGS) private readonly settings: ResearchSettings,
  ) {}

  execute(command: ResearchCommand<MessageData<typeof ScorePapers>>): Promise<ResearchReply> {
    const { data } = command;
    return answerOnce(this.replies, command.commandId, () =>
      withSkillFailure(command, 'score', this.settings.stepDeadlineMs, async (signal) => {
        const { papers, provenance } = await this.skills.scorer.score({ query: data.query, intent: data.intent, strategy: data.strategy, papers: data.papers }, { signal });
        return {
          kind: 'scored',
          id: deterministicUuid(command.commandId, PapersScored.subject),
          data: { runId: data.runId, commandId: command.commandId, iteration: data.iteration, papers: fitPapersToMessage(papers).papers, provenance },
        };
      }),
    );
  }
}
