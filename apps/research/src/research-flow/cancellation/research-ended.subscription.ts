import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { parseEnvelope, ResearchFailed } from '@openpaw/contracts';
import { NATS_CONNECTION } from '@openpaw/messaging';
import { FLOW_CANCELLATIONS } from '../ports.js';
import type { LegCancellations } from './leg-cancellations.js';

/**
 * A core NATS subscription on ResearchFailed (not a durable consumer): every research replica hears
 * it and stops its own in-flight legs of the run. Best effort: a replica that misses it lets the leg
 * finish within its cap, and the saga ignores the late answer.
 */
@Injectable()
export class ResearchEndedSubscription implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ResearchEndedSubscription.name);
  private subscription: Subscription | undefined;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(FLOW_CANCELLATIONS) private readonly cancellations: LegCancellations,
  ) {}

  async onModuleInit(): Promise<void> {
    this.subscription = this.nc.subscribe(ResearchFailed.subject, {
      callback: (error, message) => {
        if (error !== null) return;
        const parsed = parseEnvelope(ResearchFailed, message.data);
        if (!parsed.ok) return;
        const { researchId, legRound, synthesisRound, errorKind } = parsed.envelope.data;
        const aborted = this.cancellations.ended(researchId, { legRound, synthesisRound });
        if (aborted > 0) this.logger.log({ researchId, errorKind, aborted }, 'research ended: stopped its in-flight calls');
      },
    });
    await this.nc.flush();
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }
}
