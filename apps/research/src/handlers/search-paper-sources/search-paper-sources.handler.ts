import { Inject, Injectable } from '@nestjs/common';
import { addCuts, type MessageData, PaperSourcesSearched, type ScholarlySourceName, type SearchPaperSources } from '@openpaw/contracts';
import { answerOnceWith, type KeptReplyStore, type Reply, replyTo } from '@openpaw/messaging';
import type { Clock, ScholarlySource } from '@openpaw/providers';
import type { ResearchSettings } from '../../config.js';
import { LibrarySource } from '../../library/library-source.js';
import { PaperSets } from '../../paper-search/papers/paper-sets.js';
import { searchSources } from '../../paper-search/search/search-sources.js';
import { type LibraryStore, RESEARCH_CLOCK, RESEARCH_LIBRARY, RESEARCH_PAPER_SETS, RESEARCH_REPLIES, RESEARCH_SETTINGS, RESEARCH_SOURCES } from '../../ports.js';
import type { ResearchCommand } from '../research-command.js';

/**
 * SearchPaperSources → PaperSourcesSearched: the configured remote sources plus the user's library,
 * in parallel; a failing source is in `sourceReports`, never a failed step. Every paper found is
 * stored and referenced when the command asks (`papersByReference`), else capped to one message.
 */
@Injectable()
export class SearchPaperSourcesHandler {
  constructor(
    @Inject(RESEARCH_SOURCES) private readonly remote: readonly ScholarlySource[],
    @Inject(RESEARCH_LIBRARY) private readonly library: LibraryStore,
    @Inject(RESEARCH_REPLIES) private readonly replies: KeptReplyStore,
    @Inject(RESEARCH_SETTINGS) private readonly settings: ResearchSettings,
    @Inject(RESEARCH_CLOCK) private readonly clock: Clock,
    @Inject(RESEARCH_PAPER_SETS) private readonly paperSets: PaperSets,
  ) {}

  execute(command: ResearchCommand<MessageData<typeof SearchPaperSources>>): Promise<Reply> {
    const { data } = command;
    return answerOnceWith(this.replies, command.commandId, async () => {
      const sources = new Map<ScholarlySourceName, ScholarlySource>(this.remote.map((s) => [s.name, s]));
      sources.set('library', new LibrarySource(this.library, data.userId));
      const found = await searchSources(data.strategy, sources, {
        perSourceLimit: this.settings.perSourceLimit,
        deadlineMs: this.settings.sourceDeadlineMs,
        clock: this.clock,
      });
      const out = await this.paperSets.out(data.runId, command.commandId, found.papers, data.papersByReference);
      return replyTo(command.commandId, PaperSourcesSearched, {
        runId: data.runId,
        commandId: command.commandId,
        iteration: data.iteration,
        papers: out.papers,
        ...(out.papersRef === undefined ? {} : { papersRef: out.papersRef }),
        sourceReports: found.sourceReports,
        cuts: addCuts(found.cuts, out.cuts),
      });
    });
  }
}
