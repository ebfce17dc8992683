import { Inject, Injectable } from '@nestjs/common';
import { type BuildSearchStrategy, deterministicUuid, type MessageData, SearchStrategyBuilt } from '@openpaw/contracts';
import type { ResearchSettings } from '../../config.js';
import type { PaperSearchSkills } from '../../paper-search/skills/paper-search-skills.js';
import { strategyDiff } from '../../paper-search/strategy/strategy-diff.js';
import { RESEARCH_REPLIES, RESEARCH_SETTINGS, RESEARCH_SKILLS, type ReplyStore, type ResearchReply } from '../../ports.js';
import { answerOnce, type ResearchCommand, withSkillFailure } from '../answer-once.js';

/** BuildSearchStrategy → SearchStrategyBuilt with the diff from the previous iteration's strategy. */
@Injectable()
export class BuildSearchStrategyHandler {
  constructor(
    @Inject(RESEARCH_SKILLS) private readonly skills: PaperSearchSkills,
    @Inject(RESEARCH_REPLIES) private readonly replies: ReplyStore,
    @Inject(RESEARCH_SETTINGS) private readonly settings: ResearchSettings,
  ) {}

  execute(command: ResearchCommand<MessageData<typeof BuildSearchStrategy>>): Promise<ResearchReply> {
    const { data } = command;
    return answerOnce(this.replies, command.commandId, () =>
      withSkillFailure(command, 'build_strategy', this.settings.stepDeadlineMs, async (signal) => {
        const { strategy, provenance } = await this.skills.strategyBuilder.build(
          { intent: data.intent, previousStrategies: data.previousStrategies, feedback: data.feedback, availableSources: data.availableSources },
          { signal },
        );
        const previous = data.previousStrategies.at(-1);
        return {
          kind: 'strategy_built',
          id: deterministicUuid(command.commandId, SearchStrategyBuilt.subject),
          data: {
            runId: data.runId,
            commandId: command.commandId,
            iteration: data.iteration,
            strategy,
            diff: previous === undefined ? null : strategyDiff(previous, strategy),
            provenance,
          },
        };
      }),
    );
  }
}
