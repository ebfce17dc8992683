import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { InputRefused, jsonOf, parseEnvelopeJson, RunStateChanged, RunStateChangedV2 } from '@openpaw/contracts';
import { NATS_CONNECTION, NATS_MSG_ID, ValidatedEnvelopes } from '@openpaw/messaging';
import { RunEventApplier } from '../projection/run-event-applier.js';
import { asRunChange, type RunChange, transitionsOf } from '../projection/run-change.js';
import type { RunProjection } from '../projection/run-projection.store.js';
import { type RunEvent, RunEventBus } from './run-event-bus.js';

/**
 * A core NATS subscription (not a durable consumer) on the run events: every gateway replica
 * receives every event and feeds its own `RunEventBus`, so an SSE stream or a waiting cancel is
 * answered whichever replica holds it. Events are best-effort here; the projection (durable
 * consumer) is the source of truth, and readers reconcile with it.
 *
 * Read-your-writes: a state change of a run that a request on this replica is watching is written
 * into the projection *before* the watchers hear of it, so whatever a client does after hearing
 * "completed" (GET the run, its solution, its report) reads a row that says so, instead of one the
 * durable consumer has not caught up yet. The write is idempotent by version; the consumer's
 * later apply of the same event changes nothing. A run's events go to its watchers in arrival order.
 */
@Injectable()
export class RunEventsSubscription implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RunEventsSubscription.name);
  private readonly subscriptions: Subscription[] = [];
  /** Per watched run, the delivery in progress: the next event of the run waits for it. */
  private readonly deliveries = new Map<string, Promise<void>>();
  /** Per watched run, the newest version its watchers heard (forgotten when nobody here watches it). */
  private readonly deliveredVersions = new Map<string, number>();

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly bus: RunEventBus,
    private readonly applier: RunEventApplier,
    private readonly validated: ValidatedEnvelopes,
  ) {}

  async onModuleInit(): Promise<void> {
    this.subscriptions.push(
      ...[RunStateChangedV2, RunStateChanged].map((definition) =>
        this.nc.subscribe(definition.subject, {
          callback: (error, message) => {
            if (error !== null) return;
            const json = jsonOf(message.data);
            // Most run changes are of runs nobody here watches: the durable consumer projects those,
            // so this replica neither validates nor applies them.
            if (!this.wanted(json)) return;
            const parsed = json.ok ? parseEnvelopeJson(definition, json.value) : json;
            if (!parsed.ok) {
              this.logger.warn({ subject: message.subject, reason: parsed.reason }, 'ignoring an unreadable run event');
              return;
            }
            // The projection consumer of this replica, when it gets the same message, uses this parse.
            this.validated.remember(message.subject, message.headers?.get(NATS_MSG_ID), message.data, parsed.envelope);
            this.deliverChange(parsed.envelope.id, asRunChange(parsed.envelope.data));
          },
        }),
      ),
      this.nc.subscribe(InputRefused.subject, {
        callback: (error, message) => {
          if (error !== null) return;
          const json = jsonOf(message.data);
          if (!this.wanted(json)) return;
          const parsed = json.ok ? parseEnvelopeJson(InputRefused, json.value) : json;
          if (!parsed.ok) {
            this.logger.warn({ subject: message.subject, reason: parsed.reason }, 'ignoring an unreadable refusal');
            return;
          }
          this.deliver({ kind: 'inputRefused', messageId: parsed.envelope.id, data: parsed.envelope.data });
        },
      }),
    );
    // The subscriptions are registered on the server before the gateway takes traffic.
    await this.nc.flush();
  }

  onApplicationShutdown(): void {
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
  }

  /**
   * Whether the event (its envelope as JSON, read once for this look and the parse after it) is of a
   * run that a request here watches or that has a delivery in progress. An unreadable envelope is
   * wanted: its parse names the problem in the log.
   */
  private wanted(json: ReturnType<typeof jsonOf>): boolean {
    if (!json.ok) return true;
    const runId = (json.value as { data?: { runId?: unknown } } | null)?.data?.runId;
    return typeof runId !== 'string' || this.deliveries.has(runId) || this.bus.isWatched(runId);
  }

  /**
   * Unwatched runs cost nothing; a watched run's change is projected once, then each of its
   * transitions is published in order (the last with the row it left), after the run's earlier
   * deliveries. Transitions this replica has delivered already (the v1s of ADR 0024's deprecation
   * window beside their v2) are not published again.
   */
  private deliverChange(messageId: string, change: RunChange): void {
    this.enqueue(change.runId, async () => {
      const delivered = this.deliveredVersions.get(change.runId) ?? -1;
      if (change.version <= delivered) return;
      const projected = await this.writeThrough(change);
      const transitions = transitionsOf(change).filter((transition) => transition.version > delivered);
      this.deliveredVersions.set(change.runId, change.version);
      transitions.forEach((data, i) => {
        const last = i === transitions.length - 1;
        this.bus.publish(last && projected !== undefined ? { kind: 'stateChanged', messageId, data, projected } : { kind: 'stateChanged', messageId, data });
      });
    });
  }

  private deliver(event: RunEvent): void {
    this.enqueue(event.data.runId, () => Promise.resolve(this.bus.publish(event)));
  }

  /** Runs `delivery` after the run's earlier deliveries, when a request here watches the run. */
  private enqueue(runId: string, delivery: () => Promise<void>): void {
    const previous = this.deliveries.get(runId);
    if (previous === undefined && !this.bus.isWatched(runId)) {
      this.deliveredVersions.delete(runId);
      return;
    }
    const next = (previous ?? Promise.resolve()).then(delivery);
    this.deliveries.set(runId, next);
    void next.finally(() => {
      if (this.deliveries.get(runId) !== next) return;
      this.deliveries.delete(runId);
      if (!this.bus.isWatched(runId)) this.deliveredVersions.delete(runId);
    });
  }

  /** The run as the event left it in the projection, when this write moved it. */
  private async writeThrough(change: RunChange): Promise<RunProjection | undefined> {
    try {
      return await this.applier.apply(change);
    } catch (error) {
      // The watchers still hear the event; the durable consumer projects it when it can.
      this.logger.warn({ runId: change.runId, version: change.version, err: error }, 'could not project a watched run event ahead of its consumer');
      return undefined;
    }
  }
}
