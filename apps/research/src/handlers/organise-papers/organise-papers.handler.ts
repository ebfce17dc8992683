import { Inject, Injectable } from '@nestjs/common';
import { addCuts, type MessageData, type OrganisePapers, PapersOrganised, scoredPaper } from '@openpaw/contracts';
import { answerOnceWith, type KeptReplyStore, type Reply, replyTo } from '@openpaw/messaging';
import type { Clock } from '@openpaw/providers';
import type { ResearchSettings } from '../../config.js';
import { collectionPapers, organiseCollection } from '../../paper-search/organise/organise-collection.js';
import { PaperSets } from '../../paper-search/papers/paper-sets.js';
import type { PaperSearchSkills } from '../../paper-search/skills/paper-search-skills.js';
import { RESEARCH_CLOCK, RESEARCH_PAPER_SETS, RESEARCH_REPLIES, RESEARCH_SETTINGS, RESEARCH_SKILLS } from '../../ports.js';
import { type ResearchCommand, withSkillFailure } from '../research-command.js';

/** OrganisePapers → PapersOrganised: the iteration's collection (facets, themes, source reports), from the scored papers inline or stored (`papersRef`). */
@Injectable()
export class OrganisePapersHandler {
  constructor(
    @Inject(RESEARCH_SKILLS) private readonly skills: PaperSearchSkills,
    @Inject(RESEARCH_REPLIES) private readonly replies: KeptReplyStore,
    @Inject(RESEARCH_SETTINGS) private readonly settings: ResearchSettings,
    @Inject(RESEARCH_CLOCK) private readonly clock: Clock,
    @Inject(RESEARCH_PAPER_SETS) private readonly paperSets: PaperSets,
  ) {}

  execute(command: ResearchCommand<MessageData<typeof OrganisePapers>>): Promise<Reply> {
    const { data } = command;
    return answerOnceWith(this.replies, command.commandId, () =>
      withSkillFailure(command, 'organise', this.settings.stepDeadlineMs, async (signal) => {
        const papers = await this.paperSets.in(data, scoredPaper);
        const { themes, provenance } = await this.skills.themer.themes({ query: data.query, strategy: data.strategy, papers }, { signal });
        // Claim check: the collection's papers whole, for every view and export; the message's own may be shortened to fit.
        const whole = data.papersByReference === true ? await this.paperSets.store(data.runId, command.commandId, collectionPapers(papers, data.strategy)) : null;
        const collection = organiseCollection({
          ...data,
          papers,
          themes,
          organisedBy: provenance,
          createdAt: new Date(this.clock.now()).toISOString(),
          ...(whole === null ? {} : { wholePapers: { ...whole, cuts: addCuts(data.cuts) } }),
        });
        return replyTo(command.commandId, PapersOrganised, { runId: data.runId, commandId: command.commandId, iteration: data.iteration, collection });
      }),
    );
  }
}
