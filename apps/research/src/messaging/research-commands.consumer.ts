import { Inject, Injectable } from '@nestjs/common';
import {
  BuildSearchStrategy,
  DeduplicatePapers,
  type Envelope,
  ImportLibraryReferences,
  type MessageData,
  OrganisePapers,
  ParsePaperSearchIntent,
  ScorePapers,
  SearchPaperSources,
} from '@openpaw/contracts';
import { type HandlerOutcome, MESSAGE_PUBLISHER, type MessagePublisher, OnMessage, publishReplies, type Reply } from '@openpaw/messaging';
import { BuildSearchStrategyHandler } from '../handlers/build-search-strategy/build-search-strategy.handler.js';
import { DeduplicatePapersHandler } from '../handlers/deduplicate-papers/deduplicate-papers.handler.js';
import { ImportLibraryReferencesHandler } from '../handlers/import-library-references/import-library-references.handler.js';
import { OrganisePapersHandler } from '../handlers/organise-papers/organise-papers.handler.js';
import { ParsePaperSearchIntentHandler } from '../handlers/parse-paper-search-intent/parse-paper-search-intent.handler.js';
import { ScorePapersHandler } from '../handlers/score-papers/score-papers.handler.js';
import { SearchPaperSourcesHandler } from '../handlers/search-paper-sources/search-paper-sources.handler.js';

export const RESEARCH_SOURCE = '/openpaw/research';

/**
 * The research service's JetStream transport for paper search: builds each command, calls its
 * handler and publishes the reply as an answer to the command (correlation = the command's run,
 * causation = the command, same user).
 */
@Injectable()
export class ResearchCommandsConsumer {
  constructor(
    private readonly parseIntent: ParsePaperSearchIntentHandler,
    private readonly buildStrategy: BuildSearchStrategyHandler,
    private readonly searchSources: SearchPaperSourcesHandler,
    private readonly deduplicate: DeduplicatePapersHandler,
    private readonly score: ScorePapersHandler,
    private readonly organise: OrganisePapersHandler,
    private readonly importLibrary: ImportLibraryReferencesHandler,
    @Inject(MESSAGE_PUBLISHER) private readonly publisher: MessagePublisher,
  ) {}

  @OnMessage(ParsePaperSearchIntent)
  onParseIntent(envelope: Envelope<MessageData<typeof ParsePaperSearchIntent>>): Promise<HandlerOutcome> {
    return this.answer(envelope, envelope.data.runId, this.parseIntent.execute({ commandId: envelope.id, data: envelope.data }));
  }

  @OnMessage(BuildSearchStrategy)
  onBuildStrategy(envelope: Envelope<MessageData<typeof BuildSearchStrategy>>): Promise<HandlerOutcome> {
    return this.answer(envelope, envelope.data.runId, this.buildStrategy.execute({ commandId: envelope.id, data: envelope.data }));
  }

  @OnMessage(SearchPaperSources)
  onSearchSources(envelope: Envelope<MessageData<typeof SearchPaperSources>>): Promise<HandlerOutcome> {
    return this.answer(envelope, envelope.data.runId, this.searchSources.execute({ commandId: envelope.id, data: envelope.data }));
  }

  @OnMessage(DeduplicatePapers)
  onDeduplicate(envelope: Envelope<MessageData<typeof DeduplicatePapers>>): Promise<HandlerOutcome> {
    return this.answer(envelope, envelope.data.runId, this.deduplicate.execute({ commandId: envelope.id, data: envelope.data }));
  }

  @OnMessage(ScorePapers)
  onScore(envelope: Envelope<MessageData<typeof ScorePapers>>): Promise<HandlerOutcome> {
    return this.answer(envelope, envelope.data.runId, this.score.execute({ commandId: envelope.id, data: envelope.data }));
  }

  @OnMessage(OrganisePapers)
  onOrganise(envelope: Envelope<MessageData<typeof OrganisePapers>>): Promise<HandlerOutcome> {
    return this.answer(envelope, envelope.data.runId, this.organise.execute({ commandId: envelope.id, data: envelope.data }));
  }

  @OnMessage(ImportLibraryReferences)
  onImportLibrary(envelope: Envelope<MessageData<typeof ImportLibraryReferences>>): Promise<HandlerOutcome> {
    return this.answer(envelope, envelope.data.importId, this.importLibrary.execute({ commandId: envelope.id, data: envelope.data }));
  }

  private async answer(command: Envelope<unknown>, subject: string, reply: Promise<Reply>): Promise<HandlerOutcome> {
    await publishReplies(this.publisher, command, [await reply], { source: RESEARCH_SOURCE, subject });
    return { kind: 'ack' };
  }
}
