import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { parseEnvelope, ProblemWithdrawn } from '@openpaw/contracts';
import { NATS_CONNECTION } from '@openpaw/messaging';
import { MessageLogContext } from '@openpaw/platform';
import { RetrievalIndex } from '../search/retrieval-index.js';

/**
 * Every replica hears each ProblemWithdrawn on a core subscription (not a durable consumer: each replica
 * must apply it, not one of them) and drops the problem from its in-memory pHash and vector indexes.
 * No tier serves a withdrawn problem meanwhile (the catalogue lookups skip it); this only frees memory
 * at once. A replica that misses it (restarting, disconnected) drops it at its next catch-up with the
 * catalogue, where the withdrawn row shows as changed, or rebuilds without it.
 */
@Injectable()
export class WithdrawalSubscription implements OnModuleInit, OnApplicationShutdown {
  private subscription: Subscription | undefined;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly index: RetrievalIndex,
    private readonly log: MessageLogContext,
  ) {}

  async onModuleInit(): Promise<void> {
    this.subscription = this.nc.subscribe(ProblemWithdrawn.subject, {
      callback: (error, message) => {
        if (error !== null) return;
        const parsed = parseEnvelope(ProblemWithdrawn, message.data);
        if (!parsed.ok || parsed.envelope.data.outcome !== 'withdrawn') return;
        const { assetVersionId } = parsed.envelope.data;
        this.index.forgetWithdrawn(assetVersionId).then(
          (forgotten) => {
            if (forgotten) this.log.info({ assetVersionId }, 'withdrawn problem dropped from memory');
          },
          (failure: unknown) => this.log.warn({ assetVersionId, err: failure }, 'withdrawn problem not dropped from memory (the next catch-up drops it)'),
        );
      },
    });
    await this.nc.flush();
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }
}
