import { type DynamicModule, Inject, Module, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { boundedMathsEngine, configureBoundedMathsEngine } from '@openpaw/maths/bounded';
import { adapterProvider, databaseReadiness, PlatformModule, ReadinessRegistry, ServiceMessagingModule } from '@openpaw/platform';
import { type BlobStore, createBlobStoreFromEnv, createLlmFromEnv, observeLlmCalls, type LlmClient } from '@openpaw/providers';
import type { DataSource } from 'typeorm';
import type { SolveSettings } from './config.js';
import { GenerateSolutionHandler } from './handlers/generate-solution/generate-solution.handler.js';
import { SolveCommandsConsumer } from './messaging/solve-commands.consumer.js';
import { databaseProviders, SOLVE_DATA_SOURCE } from './persistence/database.js';
import { SOLVE_BLOBS, SOLVE_LLM, SOLVE_MATHS_TRANSLATOR, SOLVE_SETTINGS } from './ports.js';
import { LlmMathsTranslator } from './solution/maths-translation.js';

export const SERVICE_NAME = 'solve';

/** Adapters a test (or an embedding process) may supply instead of the ones built from env. */
export interface SolveAdapters {
  readonly llm?: LlmClient;
  readonly blobs?: BlobStore;
}

/**
 * The solve service: answers `GenerateSolution` (consumed from `openpaw.cmd.solve.>`) with
 * `SolutionGenerated` or `SolutionFailed`. The LLM client and blob store come from the environment its settings read at start
 * (`@openpaw/providers`: the local deterministic model and the local filesystem by default); its
 * attempts live in the `solve` schema.
 */
@Module({})
export class SolveModule implements OnModuleInit, OnModuleDestroy {
  constructor(
    private readonly readiness: ReadinessRegistry,
    @Inject(SOLVE_DATA_SOURCE) private readonly dataSource: DataSource,
  ) {}

  static forRoot(settings: SolveSettings, adapters: SolveAdapters = {}): DynamicModule {
    // Before any provider takes the process's engine (the handler, the local model's maths).
    configureBoundedMathsEngine({ workers: settings.mathsWorkers });
    const llm = adapterProvider(SOLVE_LLM, adapters.llm, (log, metrics) => observeLlmCalls(createLlmFromEnv(settings.providerEnv, { logger: log }), metrics.llmCalls));
    const blobs = adapterProvider(SOLVE_BLOBS, adapters.blobs, (log) => createBlobStoreFromEnv(settings.providerEnv, { logger: log }));
    // A translation model, where one is configured, over the same provider port (and its cost budget) as the solves.
    const model = settings.mathsTranslationModel;
    const translator = model === undefined ? [] : [{ provide: SOLVE_MATHS_TRANSLATOR, useFactory: (client: LlmClient) => new LlmMathsTranslator(client, model), inject: [SOLVE_LLM] }];
    return {
      module: SolveModule,
      imports: [PlatformModule.forService(SERVICE_NAME), ServiceMessagingModule.forService(SERVICE_NAME, { ...settings.messaging })],
      providers: [{ provide: SOLVE_SETTINGS, useValue: settings }, llm, blobs, ...translator, ...databaseProviders, GenerateSolutionHandler, SolveCommandsConsumer],
    };
  }

  onModuleInit(): void {
    this.readiness.register(databaseReadiness('database', this.dataSource));
    // The maths engine's worker starts with the first problem, not here (ADR 0039): a replica that solves
    // nothing holds no engine (~110 MB). The first solve waits about a second for it; its budget's
    // deadline starts once the worker is warm, so the wait never turns into a refusal.
  }

  async onModuleDestroy(): Promise<void> {
    await boundedMathsEngine().close();
  }
}
