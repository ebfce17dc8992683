import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { type Envelope, EVENT_CONSUMERS, type MessageData, PAPER_SEARCH, RunEnded, STREAMS } from '@openpaw/contracts';
import { type ConsumerHandle, DEFAULT_MAX_DELIVER, ensureConsumer, jetstreamManagerWhenReady, NATS_CONNECTION, startConsumer } from '@openpaw/messaging';
import { MessageLogContext, MetricsMessagingObserver } from '@openpaw/platform';
import type { Clock } from '@openpaw/providers';
import type { ResearchSettings } from '../../config.js';
import { RESEARCH_CLOCK, RESEARCH_PAPER_SET_RETENTION, RESEARCH_SETTINGS } from '../../ports.js';
import type { PaperSetRetention } from './paper-set-retention.js';

/** FROZEN: the durable is the position of the research service's replicas in the `RunEnded` events; renaming it re-reads them (harmless). */
export const PAPER_SET_ENDS_DURABLE = EVENT_CONSUMERS.research.paperSetEnds.durable;

/**
 * Runs the paper-list retention in the research service: a durable consumer of `RunEnded` (shared by
 * the replicas, each end recorded once) records paper-search runs' ends, and every replica sweeps
 * on a timer (`OPENPAW_RESEARCH_PAPER_LIST_SWEEP_INTERVAL_MS`); concurrent sweeps take disjoint runs.
 */
@Injectable()
export class PaperSetRetentionWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private consumer: ConsumerHandle | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(RESEARCH_PAPER_SET_RETENTION) private readonly retention: PaperSetRetention,
    @Inject(RESEARCH_SETTINGS) private readonly settings: ResearchSettings,
    @Inject(RESEARCH_CLOCK) private readonly clock: Clock,
    private readonly observer: MetricsMessagingObserver,
    private readonly logs: MessageLogContext,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await ensureConsumer(await jetstreamManagerWhenReady(this.nc), {
      stream: STREAMS.events.name,
      durable: PAPER_SET_ENDS_DURABLE,
      filterSubject: RunEnded.subject,
      maxDeliver: DEFAULT_MAX_DELIVER + 1,
      ackWaitMs: 30_000,
      maxAckPending: 100,
    });
    this.consumer = await startConsumer(jetstream(this.nc), {
      stream: STREAMS.events.name,
      durable: PAPER_SET_ENDS_DURABLE,
      definitions: [RunEnded],
      concurrency: 4,
      handler: (item) => this.onRunEnded(item.envelope as Envelope<MessageData<typeof RunEnded>>),
      observer: this.observer,
      logger: this.logs,
    });
    this.timer = setInterval(() => void this.sweepOnce(), this.settings.paperListSweepIntervalMs);
    this.timer.unref();
  }

  private async onRunEnded(envelope: Envelope<MessageData<typeof RunEnded>>): Promise<void> {
    if (envelope.data.workflowType !== PAPER_SEARCH) return;
    await this.retention.recordEnd(envelope.data.runId, new Date(envelope.time));
  }

  /** One sweep at a time in this process; a failed sweep is logged and the next one finishes its work. */
  sweepOnce(): Promise<void> {
    this.sweeping ??= this.retention
      .sweep(new Date(this.clock.now()))
      .then((report) => {
        if (report.runsSwept + report.runsReopened > 0) this.logs.logger.info({ ...report }, 'paper search: stored paper lists past their retention swept');
      })
      .catch((error: unknown) => this.logs.logger.warn({ err: error }, 'paper search: sweeping stored paper lists failed (the next sweep retries)'))
      .finally(() => {
        this.sweeping = undefined;
      });
    return this.sweeping;
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.consumer?.stop();
    this.consumer = undefined;
    await this.sweeping;
  }
}
