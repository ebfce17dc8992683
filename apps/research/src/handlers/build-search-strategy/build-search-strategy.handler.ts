import { Inject, Injectable } from '@nestjs/common';
import { type BuildSearchStrategy, type MessageData, SearchStrategyBuilt } from '@openpaw/contracts';
import { answerOnceWith, type KeptReplyStore, type Reply, replyTo } from '@openpaw/messaging';
import type { ResearchSettings } from '../../config.js';
import type { PaperSearchSkills } from '../../paper-search/skills/paper-search-skills.js';
import { strategyDiff } from '../../paper-search/strategy/strategy-diff.js';
import { RESEARCH_REPLIES, RESEARCH_SETTINGS, RESEARCH_SKILLS } from '../../ports.js';
import { type ResearchCommand, withSkillFailure } from '../research-command.js';

/** BuildSearchStrategy → SearchStrategyBuilt with the diff from the previous iteration's strategy. */
@Injectable()
export class BuildSearchStrategyHandler {
  constructor(
    @Inject(RESEARCH_SKILLS) private readonly skills: PaperSearchSkills,
    @Inject(RESEARCH_REPLIES) private readonly replies: KeptReplyStore,
    @Inject(RESEARCH_SETTINGS) private readonly settings: ResearchSettings,
  ) {}

  execute(command: ResearchCommand<MessageData<typeof BuildSearchStrategy>>): Promise<Reply> {
    const { data } = command;
    return answerOnceWith(this.replies, command.commandId, () =>
      withSkillFailure(command, 'build_strategy', this.settings.stepDeadlineMs, async (signal) => {
        const { strategy, provenance } = await this.skills.strategyBuilder.build(
          { intent: data.intent, previousStrategies: data.previousStrategies, feedback: data.feedback, availableSources: data.availableSources, ...(data.markedPapers !== undefined ? { markedPapers: data.markedPapers } : {}) },
          { signal },
        );
        const previous = data.previousStrategies.at(-1);
        return replyTo(command.commandId, SearchStrategyBuilt, {
            runId: data.runId,
            commandId: command.commandId,
            iteration: data.iteration,
            strategy,
            diff: previous === undefined ? null : strategyDiff(previous, strategy),
            provenance,
          });
      }),
    );
  }
}
