import { Inject, Injectable } from '@nestjs/common';
import { type MessageData, type ParsePaperSearchIntent, PaperSearchIntentParsed } from '@openpaw/contracts';
import { answerOnceWith, type KeptReplyStore, type Reply, replyTo } from '@openpaw/messaging';
import type { ResearchSettings } from '../../config.js';
import type { PaperSearchSkills } from '../../paper-search/skills/paper-search-skills.js';
import { RESEARCH_REPLIES, RESEARCH_SETTINGS, RESEARCH_SKILLS } from '../../ports.js';
import { type ResearchCommand, withSkillFailure } from '../research-command.js';

/** ParsePaperSearchIntent → PaperSearchIntentParsed, or PaperSearchStepFailed (the run fails with its reason). */
@Injectable()
export class ParsePaperSearchIntentHandler {
  constructor(
    @Inject(RESEARCH_SKILLS) private readonly skills: PaperSearchSkills,
    @Inject(RESEARCH_REPLIES) private readonly replies: KeptReplyStore,
    @Inject(RESEARCH_SETTINGS) private readonly settings: ResearchSettings,
  ) {}

  execute(command: ResearchCommand<MessageData<typeof ParsePaperSearchIntent>>): Promise<Reply> {
    return answerOnceWith(this.replies, command.commandId, () =>
      withSkillFailure(command, 'parse_intent', this.settings.stepDeadlineMs, async (signal) => {
        const { intent, provenance } = await this.skills.intentParser.parse(command.data.query, { signal });
        return replyTo(command.commandId, PaperSearchIntentParsed, { runId: command.data.runId, commandId: command.commandId, intent, provenance });
      }),
    );
  }
}
