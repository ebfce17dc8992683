import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { type Envelope, EVENT_CONSUMERS, RunStateChanged, RunStateChangedV2, STREAMS } from '@openpaw/contracts';
import { type ConsumerHandle, DEFAULT_MAX_DELIVER, ensureConsumer, jetstreamManagerWhenReady, NATS_CONNECTION, startConsumer, ValidatedEnvelopes } from '@openpaw/messaging';
import { MessageLogContext, MetricsMessagingObserver } from '@openpaw/platform';
import { RunEventApplier } from './run-event-applier.js';
import type { RunChange, RunTransitionEvent } from './run-change.js';

/**
 * FROZEN: the durable is the projection's position in the events stream; renaming it rebuilds the
 * projection from the start of the stream (harmless, versions guard it, but slow). Named in
 * contracts' `EVENT_CONSUMERS`, where the gateway's NATS permissions read it too.
 */
export const PROJECTION_DURABLE = EVENT_CONSUMERS.gateway.runProjection.durable;
export const PROJECTION_FILTER = EVENT_CONSUMERS.gateway.runProjection.filterSubject;

/**
 * Builds the gateway's projection: a durable JetStream consumer shared by every gateway replica
 * (each event applied once, by one of them), applying `RunStateChanged` by version
 * and recording each transition in the run's timeline. It reads v2 (one change per run per
 * coordinator transaction, its transitions in order) and v1 (a coordinator older than v2 during a
 * rolling upgrade, or ADR 0024's deprecation window), each parsed once and applied once: a change
 * the live subscription of this replica parsed already (a run a request here watches) is not parsed again.
 */
@Injectable()
export class ProjectionConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private handle: ConsumerHandle | undefined;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly applier: RunEventApplier,
    private readonly observer: MetricsMessagingObserver,
    private readonly logs: MessageLogContext,
    private readonly validated: ValidatedEnvelopes,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await ensureConsumer(await jetstreamManagerWhenReady(this.nc), {
      stream: STREAMS.events.name,
      durable: PROJECTION_DURABLE,
      filterSubject: PROJECTION_FILTER,
      maxDeliver: DEFAULT_MAX_DELIVER + 1,
      ackWaitMs: 30_000,
      maxAckPending: 1_000,
    });
    this.handle = await startConsumer(jetstream(this.nc), {
      stream: STREAMS.events.name,
      durable: PROJECTION_DURABLE,
      definitions: [RunStateChangedV2, RunStateChanged],
      // Other workflow events (InputRefused, ...) are not part of the projection.
      ignoreUnknownSubjects: true,
      // Order does not matter: each row only moves to a newer version.
      concurrency: 8,
      // A watched run's change was validated by the live subscription already (RunEventsSubscription).
      validatedEnvelopes: this.validated,
      handler: (item) => this.apply(item.envelope as Envelope<RunChange | RunTransitionEvent>),
      observer: this.observer,
      logger: this.logs,
    });
  }

  async apply(envelope: Envelope<RunChange | RunTransitionEvent>): Promise<void> {
    await this.logs.run(envelope, async () => {
      const projected = await this.applier.apply(envelope.data);
      this.logs.logger.debug({ state: envelope.data.stateAfter, version: envelope.data.version, applied: projected !== undefined }, 'run projection');
    });
  }

  /** Stops pulling and lets the events in flight finish, while the database is still open. */
  async onModuleDestroy(): Promise<void> {
    await this.handle?.stop();
    this.handle = undefined;
  }
}
