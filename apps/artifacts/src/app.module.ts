import { type DynamicModule, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { adapterProvider, databaseReadiness, PlatformModule, ReadinessRegistry, ServiceMessagingModule } from '@openpaw/platform';
import { type BlobStore, createBlobStoreFromEnv, createEmbedderFromEnv, createLlmFromEnv, observeLlmCalls, type Embedder, type LlmClient } from '@openpaw/providers';
import type { DataSource } from 'typeorm';
import type { ArtifactsSettings } from './config.js';
import { ArtifactAgent } from './domain/agent/artifact-agent.js';
import { safeFetch } from './domain/sources/safe-fetch.js';
import { AddSourceHandler } from './handlers/add-source/add-source.handler.js';
import { AnswerChatHandler } from './handlers/answer-chat/answer-chat.handler.js';
import { CaptureSnapshotHandler, NotebookRetriever } from './handlers/capture-snapshot/capture-snapshot.handler.js';
import { GenerateArtifactHandler } from './handlers/generate-artifact/generate-artifact.handler.js';
import { PlanArtifactHandler } from './handlers/plan-artifact/plan-artifact.handler.js';
import { ValidateArtifactHandler } from './handlers/validate-artifact/validate-artifact.handler.js';
import { ArtifactsCommandsConsumer } from './messaging/artifacts-commands.consumer.js';
import { ARTIFACTS_DATA_SOURCE, databaseProviders } from './persistence/database.js';
import { ARTIFACTS_BLOBS, ARTIFACTS_EMBEDDER, ARTIFACTS_LLM, ARTIFACTS_SETTINGS, URL_FETCHER, type UrlFetcher } from './ports.js';

export const SERVICE_NAME = 'artifacts';

/** Adapters a test (or an embedding process) may supply instead of the ones built from env. */
export interface ArtifactsAdapters {
  readonly llm?: LlmClient;
  readonly embedder?: Embedder;
  readonly blobs?: BlobStore;
  readonly fetchUrl?: UrlFetcher;
}

/**
 * The artifacts service (spec 02): notebook sources (text, URL, file; normalised, chunked and
 * indexed in the `artifacts` schema), the artifact job's steps (snapshot, plan, generate, validate)
 * and grounded chat, all consumed from `openpaw.cmd.artifacts.>`. The LLM, embedder and blob store
 * come from the environment read at start (`settings.providerEnv`; `@openpaw/providers`: local deterministic defaults).
 */
@Module({})
export class ArtifactsModule implements OnModuleInit {
  constructor(
    private readonly readiness: ReadinessRegistry,
    @Inject(ARTIFACTS_DATA_SOURCE) private readonly dataSource: DataSource,
  ) {}

  static forRoot(settings: ArtifactsSettings, adapters: ArtifactsAdapters = {}): DynamicModule {
    const fetchUrl: UrlFetcher =
      adapters.fetchUrl ??
      ((url) => safeFetch(url, { timeoutMs: settings.fetchTimeoutMs, maxBytes: settings.maxDocumentBytes, allowPrivateAddresses: settings.allowPrivateUrls }));
    return {
      module: ArtifactsModule,
      imports: [PlatformModule.forService(SERVICE_NAME), ServiceMessagingModule.forService(SERVICE_NAME, { ...settings.messaging })],
      providers: [
        { provide: ARTIFACTS_SETTINGS, useValue: settings },
        adapterProvider(ARTIFACTS_LLM, adapters.llm, (log, metrics) => observeLlmCalls(createLlmFromEnv(settings.providerEnv, { logger: log }), metrics.llmCalls)),
        adapterProvider(ARTIFACTS_EMBEDDER, adapters.embedder, (log) => createEmbedderFromEnv(settings.providerEnv, { logger: log })),
        adapterProvider(ARTIFACTS_BLOBS, adapters.blobs, (log) => createBlobStoreFromEnv(settings.providerEnv, { logger: log })),
        { provide: URL_FETCHER, useValue: fetchUrl },
        {
          provide: ArtifactAgent,
          inject: [ARTIFACTS_LLM],
          useFactory: (llm: LlmClient) => new ArtifactAgent(llm, { maxTokens: settings.maxTokens, ...(settings.llmTimeoutMs === undefined ? {} : { timeoutMs: settings.llmTimeoutMs }) }),
        },
        ...databaseProviders,
        NotebookRetriever,
        AddSourceHandler,
        CaptureSnapshotHandler,
        PlanArtifactHandler,
        GenerateArtifactHandler,
        ValidateArtifactHandler,
        AnswerChatHandler,
        ArtifactsCommandsConsumer,
      ],
    };
  }

  onModuleInit(): void {
    this.readiness.register(databaseReadiness('database', this.dataSource));
  }
}
