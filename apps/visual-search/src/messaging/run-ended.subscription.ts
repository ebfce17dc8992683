import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { VISUAL_DEGREES } from '@openpaw/contracts';
import { abortOnRunEnded, type InFlightAborts, NATS_CONNECTION } from '@openpaw/messaging';
import { MessageLogContext } from '@openpaw/platform';

/** Injection token of the service's in-flight step aborts (one `InFlightAborts` per process). */
export const VISUAL_RUN_ABORTS = Symbol('openpaw.visual-search.run-aborts');

/**
 * Every replica hears a visual degrees run's `RunEnded` (its cancel, its runtime budget, its failure)
 * and aborts the step it is running for that run: searches, image fetches, recognitions and the LLM
 * call stop through their AbortSignal.
 */
@Injectable()
export class RunEndedSubscription implements OnModuleInit, OnApplicationShutdown {
  private subscription: Subscription | undefined;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(VISUAL_RUN_ABORTS) private readonly aborts: InFlightAborts<number>,
    private readonly log: MessageLogContext,
  ) {}

  async onModuleInit(): Promise<void> {
    this.subscription = abortOnRunEnded(this.nc, this.aborts, {
      workflowTypes: [VISUAL_DEGREES],
      onAborted: (ended) => this.log.info(ended, 'visual degrees run ended: its step in flight stopped'),
    });
    await this.nc.flush();
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }
}
