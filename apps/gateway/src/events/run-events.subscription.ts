import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { InputRefused, parseEnvelope, RunStateChanged } from '@openpaw/contracts';
import { NATS_CONNECTION } from '@openpaw/messaging';
import { RunEventBus } from './run-event-bus.js';

/**
 * A core NATS subscription (not a durable consumer) on the run events: every gateway replica
 * receives every event and feeds its own `RunEventBus`, so an SSE stream or a waiting cancel is
 * answered whichever replica holds it. Events are best-effort here; the projection (durable
 * consumer) is the source of truth, and readers reconcile with it.
 */
@Injectable()
export class RunEventsSubscription implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RunEventsSubscription.name);
  private readonly subscriptions: Subscription[] = [];

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly bus: RunEventBus,
  ) {}

  async onModuleInit(): Promise<void> {
    this.subscriptions.push(
      this.nc.subscribe(RunStateChanged.subject, {
        callback: (error, message) => {
          if (error !== null) return;
          const parsed = parseEnvelope(RunStateChanged, message.data);
          if (!parsed.ok) {
            this.logger.warn({ subject: message.subject, reason: parsed.reason }, 'ignoring an unreadable run event');
            return;
          }
          this.bus.publish({ kind: 'stateChanged', messageId: parsed.envelope.id, data: parsed.envelope.data });
        },
      }),
      this.nc.subscribe(InputRefused.subject, {
        callback: (error, message) => {
          if (error !== null) return;
          const parsed = parseEnvelope(InputRefused, message.data);
          if (!parsed.ok) {
            this.logger.warn({ subject: message.subject, reason: parsed.reason }, 'ignoring an unreadable refusal');
            return;
          }
          this.bus.publish({ kind: 'inputRefused', messageId: parsed.envelope.id, data: parsed.envelope.data });
        },
      }),
    );
    // The subscriptions are registered on the server before the gateway takes traffic.
    await this.nc.flush();
  }

  onApplicationShutdown(): void {
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
  }
}
