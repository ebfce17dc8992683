import { type DynamicModule, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { adapterProvider, databaseReadiness, MessageLogContext, PlatformModule, ReadinessRegistry, ServiceMessagingModule } from '@openpaw/platform';
import { createEmbedderFromEnv, type Embedder } from '@openpaw/providers';
import type { DataSource } from 'typeorm';
import type { RetrievalSettings } from './config.js';
import { IndexDocumentHandler } from './handlers/index-document/index-document.handler.js';
import { SearchSolutionsHandler } from './handlers/search-solutions/search-solutions.handler.js';
import { WithdrawProblemHandler } from './handlers/withdraw-problem/withdraw-problem.handler.js';
import { RetrievalCommandsConsumer } from './messaging/retrieval-commands.consumer.js';
import { WithdrawalSubscription } from './messaging/withdrawal.subscription.js';
import { databaseProviders, pgPoolOf, RETRIEVAL_DATA_SOURCE } from './persistence/database.js';
import { RETRIEVAL_EMBEDDER, RETRIEVAL_SETTINGS } from './ports.js';
import { ProviderEmbedderAdapter } from './search/embedder-adapter.js';
import { RetrievalIndex } from './search/retrieval-index.js';

export const SERVICE_NAME = 'retrieval';

/** Adapters a test (or an embedding process) may supply instead of the ones built from env. */
export interface RetrievalAdapters {
  readonly embedder?: Embedder;
}

/**
 * The retrieval service: answers `SearchSolutions` (RetrievalHit / RetrievalMiss), `IndexDocument`
 * (DocumentIndexed) and `WithdrawProblem` (ProblemWithdrawn, which every replica applies to its memory), consumed from `openpaw.cmd.retrieval.>`. Its index lives in the `retrieval`
 * schema (catalogue with full-text search, embedded vectors, answered commands); the pHash indexes and
 * the embedded vector index are rebuilt in memory from it at start. Vectors go to Qdrant when
 * `OPENPAW_QDRANT_URL` is set; the embedder comes from `OPENPAW_EMBEDDINGS_*` (local hashed n-grams by default).
 */
@Module({})
export class RetrievalModule implements OnModuleInit {
  constructor(
    private readonly readiness: ReadinessRegistry,
    private readonly log: MessageLogContext,
    private readonly index: RetrievalIndex,
    @Inject(RETRIEVAL_DATA_SOURCE) private readonly dataSource: DataSource,
  ) {}

  static forRoot(settings: RetrievalSettings, adapters: RetrievalAdapters = {}): DynamicModule {
    const embedder = adapterProvider(RETRIEVAL_EMBEDDER, adapters.embedder, (log) => createEmbedderFromEnv(settings.providerEnv, { logger: log }));
    return {
      module: RetrievalModule,
      imports: [
        PlatformModule.forService(SERVICE_NAME),
        ServiceMessagingModule.forService(SERVICE_NAME, { ...settings.messaging, concurrency: settings.concurrency }),
      ],
      providers: [
        { provide: RETRIEVAL_SETTINGS, useValue: settings },
        embedder,
        ...databaseProviders,
        {
          provide: RetrievalIndex,
          inject: [RETRIEVAL_DATA_SOURCE, RETRIEVAL_EMBEDDER],
          useFactory: async (dataSource: DataSource, inner: Embedder) =>
            RetrievalIndex.open(pgPoolOf(dataSource), await ProviderEmbedderAdapter.open(inner), { vectors: settings.vectors, refreshMs: settings.refreshMs }),
        },
        SearchSolutionsHandler,
        IndexDocumentHandler,
        WithdrawProblemHandler,
        RetrievalCommandsConsumer,
        WithdrawalSubscription,
      ],
    };
  }

  onModuleInit(): void {
    this.readiness.register(databaseReadiness('database', this.dataSource));
    this.log.info({ index: this.index.stats() }, 'retrieval index loaded');
  }
}
