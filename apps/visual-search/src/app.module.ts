import { type DynamicModule, Module } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { InFlightAborts, NATS_CONNECTION } from '@openpaw/messaging';
import { MessageLogContext, PlatformMetrics, PlatformModule, ServiceMessagingModule } from '@openpaw/platform';
import type { VisualSearchSettings } from './config.js';
import { createVisualSearchHandlers, VISUAL_SEARCH_HANDLERS, type VisualSearchHandlers } from './composition.js';
import { RunEndedSubscription, VISUAL_RUN_ABORTS } from './messaging/run-ended.subscription.js';
import { StepSupersessionSubscription } from './messaging/step-supersession.js';
import { VisualSearchCommandsConsumer } from './messaging/visual-search-commands.consumer.js';
import { THUMBNAIL_RETENTION_SETTINGS, ThumbnailRetention } from './takedown/thumbnail-retention.js';

export const SERVICE_NAME = 'visual-search';

/**
 * The visual-search service: answers `VerifyEdge`, `DiscoverCandidates` and `SelectNextExpansion`, all on
 * the `visual` lane (durable `svc-visual-search-visual`): fan-out work of seconds per command that never
 * queues ahead of a critical step. Providers from the settings' `providerEnv` (`createVisualSearchHandlers`:
 * the local world by default), run memory and the evidence cache in JetStream KV buckets with TTL;
 * evidence thumbnails past their retention are deleted hourly (`ThumbnailRetention`).
 */
@Module({})
export class VisualSearchModule {
  /** `handlers`: what a test (or an embedding process) supplies instead of the ones built from the settings. */
  static forRoot(settings: VisualSearchSettings, handlers?: VisualSearchHandlers): DynamicModule {
    return {
      module: VisualSearchModule,
      imports: [
        PlatformModule.forService(SERVICE_NAME),
        // No critical-lane commands: the critical durable (`svc-visual-search`) would only collect them unread.
        ServiceMessagingModule.forService(SERVICE_NAME, { ...settings.messaging, provisionCommandsConsumer: false }),
      ],
      providers: [
        handlers !== undefined
          ? { provide: VISUAL_SEARCH_HANDLERS, useValue: handlers }
          : {
              provide: VISUAL_SEARCH_HANDLERS,
              inject: [NATS_CONNECTION, MessageLogContext, PlatformMetrics],
              useFactory: (nc: NatsConnection, log: MessageLogContext, metrics: PlatformMetrics) => createVisualSearchHandlers(nc, settings, { logger: log, llmCalls: metrics.llmCalls }),
            },
        // Tagged by step number: a later step of a run, as it is sent, supersedes its earlier ones in every replica.
        { provide: VISUAL_RUN_ABORTS, useValue: new InFlightAborts<number>() },
        RunEndedSubscription,
        StepSupersessionSubscription,
        VisualSearchCommandsConsumer,
        { provide: THUMBNAIL_RETENTION_SETTINGS, useValue: { thumbnailRetentionMs: settings.thumbnailRetentionMs } },
        ThumbnailRetention,
      ],
    };
  }
}
