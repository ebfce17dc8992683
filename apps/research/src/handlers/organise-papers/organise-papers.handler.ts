import { Inject, Injectable } from '@nestjs/common';
import { deterministicUuid, type MessageData, type OrganisePapers, PapersOrganised } from '@openpaw/contracts';
import type { Clock } from '@openpaw/providers';
import type { ResearchSettings } from '../../config.js';
import { organiseCollection } from '../../paper-search/organise/organise-collection.js';
import type { PaperSearchSkills } from '../../paper-search/skills/paper-search-skills.js';
import { RESEARCH_CLOCK, RESEARCH_REPLIES, RESEARCH_SETTINGS, RESEARCH_SKILLS, type ReplyStore, type ResearchReply } from '../../ports.js';
import { answerOnce, type ResearchCommand, withSkillFailure } from '../answer-once.js';

/** OrganisePapers → PapersOrganised: the iteration's collection (facets, themes, source reports). */
@Injectable()
export class OrganisePapersHandler {
  constructor(
    @Inject(RESEARCH_SKILLS) private readonly skills: PaperSearchSkills,
    @Inject(RESEARCH_REPLIES) private readonly replies: ReplyStore,
    @Inject(RESEARCH_SETTINGS) private readonly settings: ResearchSettings,
    @Inject(RESEARCH_CLOCK) private readonly clock: Clock,
  ) {}

  execute(command: ResearchCommand<MessageData<typeof OrganisePapers>>): Promise<ResearchReply> {
    const { data } = command;
    return answerOnce(this.replies, command.commandId, () =>
      withSkillFailure(command, 'organise', this.settings.stepDeadlineMs, async (signal) => {
        const { themes, provenance } = await this.skills.themer.themes({ query: data.query, strategy: data.strategy, papers: data.papers }, { signal });
        const collection = organiseCollection({ ...data, themes, organisedBy: provenance, createdAt: new Date(this.clock.now()).toISOString() });
        return {
          kind: 'organised',
          id: deterministicUuid(command.commandId, PapersOrganised.subject),
          data: { runId: data.runId, commandId: command.commandId, iteration: data.iteration, collection },
        };
      }),
    );
  }
}
