import { type DynamicModule, Inject, Module, type OnModuleInit, type Provider } from '@nestjs/common';
import { PRIORITY_VIDEO_LANE, VIDEO_LANE } from '@openpaw/contracts';
import { adapterProvider, databaseReadiness, PlatformModule, ReadinessRegistry, ServiceMessagingModule } from '@openpaw/platform';
import { type BlobStore, createBlobStoreFromEnv } from '@openpaw/providers';
import type { DataSource } from 'typeorm';
import type { AssetsSettings } from './config.js';
import { RegisterSolutionHandler } from './handlers/register-solution/register-solution.handler.js';
import { RenderVideoHandler } from './handlers/render-video/render-video.handler.js';
import { AssetsCommandsConsumer } from './messaging/assets-commands.consumer.js';
import { ASSETS_DATA_SOURCE, databaseProviders } from './persistence/database.js';
import { ASSETS_BLOBS, ASSETS_SETTINGS, VIDEO_RENDERER, type VideoRenderer } from './ports.js';
import { SlideshowVideoRenderer } from './video/slideshow-video-renderer.js';

export const SERVICE_NAME = 'assets';

/** Adapters a test (or an embedding process) may supply instead of the ones built from env and settings. */
export interface AssetsAdapters {
  readonly blobs?: BlobStore;
  readonly videoRenderer?: VideoRenderer;
}

/**
 * The assets service: the registry of problems and asset versions (schema `assets`) and solution
 * videos. Answers `RegisterSolution` (ProblemRegistered + AssetVersionCreated) and `RenderVideo`
 * (VideoRendered + AssetVersionCreated, or VideoRenderFailed), consumed from `openpaw.cmd.assets.>`.
 */
@Module({})
export class AssetsModule implements OnModuleInit {
  constructor(
    private readonly readiness: ReadinessRegistry,
    @Inject(ASSETS_DATA_SOURCE) private readonly dataSource: DataSource,
  ) {}

  static forRoot(settings: AssetsSettings, adapters: AssetsAdapters = {}): DynamicModule {
    const blobs = adapterProvider(ASSETS_BLOBS, adapters.blobs, (log) => createBlobStoreFromEnv(settings.providerEnv, { logger: log }));
    const renderer: Provider = { provide: VIDEO_RENDERER, useValue: adapters.videoRenderer ?? new SlideshowVideoRenderer(settings.video) };
    return {
      module: AssetsModule,
      imports: [
        PlatformModule.forService(SERVICE_NAME),
        // Renders consume their own lane (`video`), at most as many at once as the renderer runs, so a
        // queue of renders never holds up a RegisterSolution (critical lane). OPENPAW_LANES=video runs
        // a video-only worker; OPENPAW_LANE_CONCURRENCY overrides.
        ServiceMessagingModule.forService(SERVICE_NAME, {
          ...settings.messaging,
          laneConcurrency: { [VIDEO_LANE]: settings.video.maxConcurrentRenders, [PRIORITY_VIDEO_LANE]: 1, ...settings.messaging.laneConcurrency },
        }),
      ],
      providers: [
        { provide: ASSETS_SETTINGS, useValue: settings },
        blobs,
        renderer,
        ...databaseProviders,
        RegisterSolutionHandler,
        RenderVideoHandler,
        AssetsCommandsConsumer,
      ],
    };
  }

  onModuleInit(): void {
    this.readiness.register(databaseReadiness('database', this.dataSource));
  }
}
