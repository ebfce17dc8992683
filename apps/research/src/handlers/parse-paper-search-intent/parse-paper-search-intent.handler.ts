import { Inject, Injectable } from '@nestjs/common';
import { deterministicUuid, type MessageData, type ParsePaperSearchIntent, PaperSearchIntentParsed } from '@openpaw/contracts';
import type { ResearchSettings } from '../../config.js';
import type { PaperSearchSkills } from '../../paper-search/skills/paper-search-skills.js';
import { RESEARCH_REPLIES, RESEARCH_SETTINGS, RESEARCH_SKILLS, type ReplyStore, type ResearchReply } from '../../ports.js';
import { answerOnce, type ResearchCommand, withSkillFailure } from '../answer-once.js';

/** ParsePaperSearchIntent → PaperSearchIntentParsed, or PaperSearchStepFailed (the run fails with its reason). */
@Injectable()
export class ParsePaperSearchIntentHandler {
  constructor(
    @Inject(RESEARCH_SKILLS) private readonly skills: PaperSearchSkills,
    @Inject(RESEARCH_REPLIES) private readonly replies: ReplyStore,
    @Inject(RESEARCH_SETTINGS) private readonly settings: ResearchSettings,
  ) {}

  execute(command: ResearchCommand<MessageData<typeof ParsePaperSearchIntent>>): Promise<ResearchReply> {
    return answerOnce(this.replies, command.commandId, () =>
      withSkillFailure(command, 'parse_intent', this.settings.stepDeadlineMs, async (signal) => {
        const { intent, provenance } = await this.skills.intentParser.parse(command.data.query, { signal });
        return {
          kind: 'intent_parsed',
          id: deterministicUuid(command.commandId, PaperSearchIntentParsed.subject),
          data: { runId: command.data.runId, commandId: command.commandId, intent, provenance },
        };
      }),
    );
  }
}
