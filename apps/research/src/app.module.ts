import { type DynamicModule, Inject, Module, type OnModuleInit, type Provider } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { NATS_CONNECTION } from '@openpaw/messaging';
import { PAPER_SEARCH_LANE, RESEARCH_LANE } from '@openpaw/contracts';
import { adapterProvider, databaseReadiness, MessageLogContext, PlatformModule, ReadinessRegistry, ServiceMessagingModule } from '@openpaw/platform';
import { type Clock, createBlobStoreFromEnv, createLlmFromEnv, observeLlmCalls, createScholarlySourcesFromEnv, type LlmClient, type ScholarlySource, systemClock } from '@openpaw/providers';
import type { DataSource } from 'typeorm';
import type { ResearchSettings } from './config.js';
import { BuildSearchStrategyHandler } from './handlers/build-search-strategy/build-search-strategy.handler.js';
import { DeduplicatePapersHandler } from './handlers/deduplicate-papers/deduplicate-papers.handler.js';
import { ImportLibraryReferencesHandler } from './handlers/import-library-references/import-library-references.handler.js';
import { OrganisePapersHandler } from './handlers/organise-papers/organise-papers.handler.js';
import { ParsePaperSearchIntentHandler } from './handlers/parse-paper-search-intent/parse-paper-search-intent.handler.js';
import { ScorePapersHandler } from './handlers/score-papers/score-papers.handler.js';
import { SearchPaperSourcesHandler } from './handlers/search-paper-sources/search-paper-sources.handler.js';
import { ResearchCommandsConsumer } from './messaging/research-commands.consumer.js';
import { PaperSets } from './paper-search/papers/paper-sets.js';
import { scholarlyResponses } from './paper-search/search/kv-response-cache.js';
import { scholarlyStartSlots } from './paper-search/search/kv-start-slots.js';
import { createPaperSearchSkills } from './paper-search/skills/paper-search-skills.js';
import { databaseProviders, RESEARCH_DATA_SOURCE } from './persistence/database.js';
import { PaperSetRetention } from './paper-search/retention/paper-set-retention.js';
import { PaperSetRetentionWorker } from './paper-search/retention/paper-set-retention.worker.js';
import { RESEARCH_CLOCK, RESEARCH_LLM, RESEARCH_PAPER_SET_RETENTION, RESEARCH_PAPER_SETS, RESEARCH_SETTINGS, RESEARCH_SKILLS, RESEARCH_SOURCES } from './ports.js';
import { type ResearchFlowAdapters, researchFlowProviders } from './research-flow/research-flow.providers.js';

export const SERVICE_NAME = 'research';

/** Adapters a test (or an embedding process) may supply instead of the ones built from env. */
export interface ResearchAdapters {
  readonly llm?: LlmClient;
  readonly sources?: readonly ScholarlySource[];
  readonly clock?: Clock;
  /** Spec 05's research flow (key opener, share store). */
  readonly researchFlow?: ResearchFlowAdapters;
}

/**
 * The research service: answers the paper-search commands (consumed from `openpaw.cmd.research.>`)
 * with `paper-search` events. The LLM client and remote scholarly sources come from env
 * (`@openpaw/providers`: the local deterministic model, hence the local skills, and no remote
 * sources by default); the user's library and the kept replies live in the `research` schema.
 */
@Module({})
export class ResearchModule implements OnModuleInit {
  constructor(
    private readonly readiness: ReadinessRegistry,
    @Inject(RESEARCH_DATA_SOURCE) private readonly dataSource: DataSource,
  ) {}

  static forRoot(settings: ResearchSettings, adapters: ResearchAdapters = {}): DynamicModule {
    const llm = adapterProvider(RESEARCH_LLM, adapters.llm, (log, metrics) => observeLlmCalls(createLlmFromEnv(settings.providerEnv, { logger: log }), metrics.llmCalls));
    const sources: Provider =
      adapters.sources !== undefined
        ? { provide: RESEARCH_SOURCES, useValue: adapters.sources }
        : {
            provide: RESEARCH_SOURCES,
            inject: [NATS_CONNECTION, MessageLogContext],
            // Request starts and results are shared by the service's replicas (KV buckets), so each source's
            // etiquette holds across them and an identical search is fetched once.
            useFactory: (nc: NatsConnection, log: MessageLogContext) =>
              createScholarlySourcesFromEnv(settings.providerEnv, { logger: log, sharedSlots: scholarlyStartSlots(nc, log), sharedResponses: scholarlyResponses(nc, log, { claimMs: settings.searchClaimMs }) }),
          };
    const clock = adapters.clock ?? systemClock;
    return {
      module: ResearchModule,
      imports: [
        PlatformModule.forService(SERVICE_NAME),
        // The paper-search skills consume their own lane (`papersearch`, ADR 0010): slow, rate-limited
        // source calls never hold up the service's critical commands. The research lane's legs are
        // model calls that wait on the provider, so the lane takes as many at once as the providers'
        // limits let run (see researchLaneConcurrency). OPENPAW_LANE_CONCURRENCY overrides either.
        ServiceMessagingModule.forService(SERVICE_NAME, {
          ...settings.messaging,
          laneConcurrency: { [PAPER_SEARCH_LANE]: settings.paperSearchConcurrency, [RESEARCH_LANE]: settings.researchLaneConcurrency, ...settings.messaging.laneConcurrency },
        }),
      ],
      providers: [
        { provide: RESEARCH_SETTINGS, useValue: settings },
        { provide: RESEARCH_CLOCK, useValue: clock },
        llm,
        sources,
        {
          provide: RESEARCH_SKILLS,
          inject: [RESEARCH_LLM],
          useFactory: (client: LlmClient) =>
            createPaperSearchSkills(client, { maxTokens: settings.maxTokens, scoreBatchSize: settings.scoreBatchSize, currentYear: () => new Date(clock.now()).getUTCFullYear() }),
        },
        {
          provide: RESEARCH_PAPER_SETS,
          inject: [MessageLogContext],
          // Paper lists go by claim check through the blob store every service shares (the gateway's exports read them).
          // A store that cannot be opened leaves lists inline, capped to one message with the cuts counted, and says so.
          useFactory: async (log: MessageLogContext): Promise<PaperSets> => {
            try {
              return new PaperSets(await createBlobStoreFromEnv(settings.providerEnv, { logger: log }));
            } catch (error) {
              log.warn({ err: error }, 'paper search: no blob store, so lists of papers travel inline, capped to one message (the cuts are reported)');
              return new PaperSets(null);
            }
          },
        },
        ...databaseProviders,
        {
          provide: RESEARCH_PAPER_SET_RETENTION,
          inject: [RESEARCH_DATA_SOURCE, RESEARCH_PAPER_SETS],
          useFactory: (dataSource: DataSource, sets: PaperSets) => new PaperSetRetention(dataSource, sets.blobs, settings.paperListRetentionDays * 86_400_000),
        },
        PaperSetRetentionWorker,
        ParsePaperSearchIntentHandler,
        BuildSearchStrategyHandler,
        SearchPaperSourcesHandler,
        DeduplicatePapersHandler,
        ScorePapersHandler,
        OrganisePapersHandler,
        ImportLibraryReferencesHandler,
        ResearchCommandsConsumer,
        // Spec 05: the research flow (legs, synthesis, titles).
        ...researchFlowProviders(settings.flow, settings.providerEnv, adapters.researchFlow),
      ],
    };
  }

  onModuleInit(): void {
    this.readiness.register(databaseReadiness('database', this.dataSource));
  }
}
