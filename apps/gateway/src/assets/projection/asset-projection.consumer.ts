import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { AssetVersionCreated, type Envelope, EVENT_CONSUMERS, type MessageData, STREAMS, VideoRendered } from '@openpaw/contracts';
import { type ConsumerHandle, DEFAULT_MAX_DELIVER, ensureConsumer, jetstreamManagerWhenReady, NATS_CONNECTION, startConsumer } from '@openpaw/messaging';
import { MessageLogContext, MetricsMessagingObserver } from '@openpaw/platform';
import { RunProjectionStore } from '../../projection/run-projection.store.js';
import { AssetProjectionStore } from './asset-projection.store.js';

/**
 * FROZEN: the durable is the asset projection's position in the events stream; renaming it
 * rebuilds the projection from the start of the stream (harmless, upserts are idempotent, but slow).
 */
export const ASSET_PROJECTION_DURABLE = EVENT_CONSUMERS.gateway.assetProjection.durable;
export const ASSET_PROJECTION_FILTER = EVENT_CONSUMERS.gateway.assetProjection.filterSubject;

/**
 * Builds `gateway.asset_projection` from the assets service's events: a durable JetStream consumer
 * shared by every gateway replica. Other asset events (`ProblemRegistered`, `VideoRenderFailed`) are skipped.
 */
@Injectable()
export class AssetProjectionConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private handle: ConsumerHandle | undefined;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly assets: AssetProjectionStore,
    private readonly runs: RunProjectionStore,
    private readonly observer: MetricsMessagingObserver,
    private readonly logs: MessageLogContext,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await ensureConsumer(await jetstreamManagerWhenReady(this.nc), {
      stream: STREAMS.events.name,
      durable: ASSET_PROJECTION_DURABLE,
      filterSubject: ASSET_PROJECTION_FILTER,
      maxDeliver: DEFAULT_MAX_DELIVER + 1,
      ackWaitMs: 30_000,
      maxAckPending: 1_000,
    });
    this.handle = await startConsumer(jetstream(this.nc), {
      stream: STREAMS.events.name,
      durable: ASSET_PROJECTION_DURABLE,
      definitions: [AssetVersionCreated, VideoRendered],
      ignoreUnknownSubjects: true,
      concurrency: 8,
      handler: (item) => this.apply(item.envelope),
      observer: this.observer,
      logger: this.logs,
    });
  }

  async apply(envelope: Envelope): Promise<void> {
    await this.logs.run(envelope, async () => {
      if (envelope.type === AssetVersionCreated.subject) {
        const { data } = envelope as Envelope<MessageData<typeof AssetVersionCreated>>;
        await this.assets.applyAssetVersionCreated({
          assetVersionId: data.assetVersionId,
          problemId: data.problemId,
          assetType: data.assetType,
          version: data.version,
          storageKey: data.storageKey,
          contentType: data.contentType,
          userId: await this.userOf(envelope, data.runId),
          runId: data.runId,
          createdAt: new Date(envelope.time),
        });
      } else if (envelope.type === VideoRendered.subject) {
        const { data } = envelope as Envelope<MessageData<typeof VideoRendered>>;
        await this.assets.applyVideoRendered({
          videoAssetVersionId: data.videoAssetVersionId,
          solutionAssetVersionId: data.solutionAssetVersionId,
          storageKey: data.storageKey,
          durationMs: data.durationMs,
          userId: await this.userOf(envelope, data.runId),
          runId: data.runId,
          createdAt: new Date(envelope.time),
        });
      }
      this.logs.logger.debug({ type: envelope.type }, 'asset projection');
    });
  }

  /** The envelope's user, else the producing run's owner as the run projection knows it (null if not yet). */
  private async userOf(envelope: Envelope, runId: string): Promise<string | null> {
    if (envelope.userid !== undefined) return envelope.userid;
    return (await this.runs.find(runId))?.userId ?? null;
  }

  async onModuleDestroy(): Promise<void> {
    await this.handle?.stop();
    this.handle = undefined;
  }
}
