import type { JetStreamClient } from '@nats-io/jetstream';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { CancelRun, ChildRunFinished, COORDINATOR_COMMANDS_CONSUMER, coordinatorEventsDurableOf, StartRun, STREAMS, SubmitRunInput, type AnyMessageDefinition, type Envelope } from '@openpaw/contracts';
import {
  type AfterSettled,
  type BatchItem,
  connectNats,
  type ConsumerHandle,
  ensureConsumer,
  type HandlerOutcome,
  isPermanentDatabaseError,
  jetstreamManagerWhenReady,
  JetStreamPublisher,
  type MessagingLogger,
  type MessagingObserver,
  provisionStreams,
  startConsumer,
  streamProvisionFromEnv,
  type StreamProvisionOptions,
} from '@openpaw/messaging';
import { openDatabase } from '@openpaw/persistence';
import {
  coordinatorEntities,
  coordinatorMigrations,
  OutboxRelay,
  type AnySagaDefinition,
  type PendingInput,
  type RelayObserver,
  type SagaRegistry,
  SagaStore,
  TimerPoller,
} from '@openpaw/saga';
import type { DataSource } from 'typeorm';
import { JetStreamCommandObserver } from './command-observer.js';
import { inputFromMessage } from './inputs-from-messages.js';
import { DecisionClock, stepsReport, type StepsReport } from './step-report.js';

/**
 * Durable consumer names of the coordinator (FROZEN: renaming one needs a migration), named in
 * contracts, where its NATS permissions read them too.
 */
export const COORDINATOR_COMMANDS_DURABLE = COORDINATOR_COMMANDS_CONSUMER;
/**
 * One events consumer per context the workflows listen to (`openpaw.evt.<context>.>`): nats-server
 * 2.9 allows one filter subject per consumer, and a single `openpaw.evt.>` consumer would also pull
 * every run event the coordinator itself publishes.
 */
export const coordinatorEventsDurable = coordinatorEventsDurableOf;

export interface CoordinatorObserver extends RelayObserver {
  onTransition?(workflowType: string, state: string): void;
  onTimerLag?(seconds: number): void;
  /** Messages applied by a committed transaction: each one's publication time (CloudEvents `time`). */
  onInputsApplied?(publishedAt: readonly string[]): void;
  /** A committed transaction's steps (step latency) and the messages it wrote (messages per step). */
  onStepsApplied?(report: StepsReport): void;
}

export interface CoordinatorConfig {
  readonly natsUrl: string | readonly string[];
  readonly databaseUrl: string;
  readonly registry: SagaRegistry;
  readonly logger: MessagingLogger;
  readonly messagingObserver?: MessagingObserver;
  readonly observer?: CoordinatorObserver;
  /** Inputs applied per transaction at most. */
  readonly maxBatch?: number;
  /** Batches in flight per consumer (run locks keep each run's inputs serial). */
  readonly concurrency?: number;
  /** Shortest gap between timer polls (ms). */
  readonly timerIntervalMs?: number;
  /** Longest sleep of the timer poller when no timer is known due sooner (ms): bounds how late a timer set by a replica that died fires. */
  readonly timerIdleMs?: number;
  readonly relaySweepIntervalMs?: number;
  readonly poolSize?: number;
  /** Redelivery delay of messages a crashed coordinator held unacked. Batches take milliseconds. */
  readonly ackWaitMs?: number;
  /** Publish each transition's `RunStateChanged` v1 beside the batch's v2 (ADR 0024's deprecation window; default off). */
  readonly publishRunStateChangedV1?: boolean;
  /** Stream provisioning at start, from the coordinator's settings; the defaults when absent (`create-missing`: never changes an existing stream). */
  readonly streams?: StreamProvisionOptions;
}

const ACK: HandlerOutcome = { kind: 'ack' };

/** A PostgreSQL error as its SQLSTATE and message (what the dead letter's reason says). */
function permanentReason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return `${typeof code === 'string' ? code : '?'} ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * The saga coordinator: consumes its commands and the events the registered workflows need,
 * applies them in batched transactions, relays the outbox and fires timers.
 */
export class CoordinatorRuntime {
  private readonly consumers: ConsumerHandle[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly decisions = new DecisionClock();

  private constructor(
    readonly dataSource: DataSource,
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly store: SagaStore,
    private readonly relay: OutboxRelay,
    private readonly timers: TimerPoller,
    private readonly config: CoordinatorConfig,
  ) {}

  static async start(config: CoordinatorConfig): Promise<CoordinatorRuntime> {
    const dataSource = await openDatabase({
      url: config.databaseUrl,
      schema: 'coordinator',
      entities: coordinatorEntities,
      migrations: coordinatorMigrations,
      poolSize: config.poolSize ?? 8,
      applicationName: 'openpaw-coordinator',
    });
    const nc = await connectNats({ servers: config.natsUrl, name: 'coordinator' });
    const js = jetstream(nc);
    const store = new SagaStore(dataSource, config.registry, undefined, { publishV1: config.publishRunStateChangedV1 ?? false });
    const relay = new OutboxRelay(dataSource, new JetStreamPublisher(js), store, { sweepIntervalMs: config.relaySweepIntervalMs ?? 500 }, config.observer ?? {});
    const holder: { runtime?: CoordinatorRuntime } = {};
    const timers = new TimerPoller(dataSource, (inputs) => (holder.runtime === undefined ? Promise.resolve() : holder.runtime.apply(inputs)), {
      intervalMs: config.timerIntervalMs ?? 100,
      idleMs: config.timerIdleMs ?? 1_000,
      onLag: (seconds) => config.observer?.onTimerLag?.(seconds),
      onError: (error) => config.logger.error({ err: String(error) }, 'timer poll failed'),
      observeCommand: new JetStreamCommandObserver(nc, config.logger).observe,
    });
    const runtime = new CoordinatorRuntime(dataSource, nc, js, store, relay, timers, config);
    holder.runtime = runtime;
    await runtime.provisionAndConsume();
    relay.start();
    timers.start();
    return runtime;
  }

  private async provisionAndConsume(): Promise<void> {
    const jsm = await jetstreamManagerWhenReady(this.nc);
    await provisionStreams(jsm, this.config.streams ?? streamProvisionFromEnv({}));
    const common = { maxDeliver: 11, ackWaitMs: this.config.ackWaitMs ?? 5_000, maxAckPending: 4096 };
    await ensureConsumer(jsm, { stream: STREAMS.commands.name, durable: COORDINATOR_COMMANDS_DURABLE, filterSubject: 'openpaw.cmd.coordinator.>', ...common });
    const byContext = new Map<string, Map<string, AnyMessageDefinition>>();
    for (const definition of this.config.registry.all()) {
      for (const input of [...definition.inputs, ...(definition.amendedBy ?? [])]) {
        const context = byContext.get(input.context) ?? new Map<string, AnyMessageDefinition>();
        context.set(input.subject, input);
        byContext.set(input.context, context);
      }
    }
    const shared = {
      maxBatch: this.config.maxBatch ?? 256,
      concurrency: this.config.concurrency ?? 2,
      maxDeliver: 10,
      backoffMs: [100, 500, 2_000, 5_000],
      logger: this.config.logger,
      ...(this.config.messagingObserver === undefined ? {} : { observer: this.config.messagingObserver }),
      batchHandler: (items: readonly BatchItem[], afterSettled: AfterSettled) => this.handleBatch(items, afterSettled),
    };
    this.consumers.push(
      await startConsumer(this.js, {
        ...shared,
        stream: STREAMS.commands.name,
        durable: COORDINATOR_COMMANDS_DURABLE,
        definitions: [StartRun, CancelRun, SubmitRunInput, ChildRunFinished],
      }),
    );
    for (const [context, definitions] of byContext) {
      const durable = coordinatorEventsDurable(context);
      await ensureConsumer(jsm, { stream: STREAMS.events.name, durable, filterSubject: `openpaw.evt.${context}.>`, ...common });
      this.consumers.push(
        await startConsumer(this.js, {
          ...shared,
          stream: STREAMS.events.name,
          durable,
          definitions: [...definitions.values()],
          // Other events of the context are for other consumers.
          ignoreUnknownSubjects: true,
        }),
      );
    }
  }

  /**
   * One batch of messages: translated, applied in one transaction, acked after the commit. A batch
   * PostgreSQL refuses for good (class 22/23: a poison input) is applied again one input per
   * transaction, so the poison input alone fails, dead-lettered at once with its reason, and the
   * rest applies (ADR 0002). Any other failure retries the whole batch (the inbox makes that safe).
   */
  private async handleBatch(items: readonly BatchItem[], afterSettled: AfterSettled): Promise<readonly HandlerOutcome[]> {
    const receivedAt = Date.now();
    const outcomes: HandlerOutcome[] = new Array<HandlerOutcome>(items.length).fill(ACK);
    const inputs: PendingInput[] = [];
    const itemOf: number[] = [];
    for (const [i, item] of items.entries()) {
      const amenders = this.config.registry.amendersOf(item.envelope.type);
      if (amenders.length > 0) {
        // An amendment names no run: it goes to every run it concerns, finished or running, once per run.
        for (const input of await this.amendmentInputs(item.envelope, amenders)) {
          inputs.push(input);
          itemOf.push(i);
        }
        continue;
      }
      const translated = inputFromMessage(item.envelope);
      if (!translated.ok) outcomes[i] = { kind: 'reject', reason: translated.reason };
      else if (translated.input !== undefined) {
        inputs.push(translated.input);
        itemOf.push(i);
      }
    }
    if (inputs.length === 0) return outcomes;
    const observer = this.config.observer;
    try {
      await this.apply(inputs, receivedAt, afterSettled);
      observer?.onInputsApplied?.(itemOf.map((i) => (items[i] as BatchItem).envelope.time));
    } catch (error) {
      if (!isPermanentDatabaseError(error)) throw error;
      // In order: a run's inputs keep their order; each commits (or fails) on its own.
      for (const [n, input] of inputs.entries()) {
        const i = itemOf[n] as number;
        try {
          await this.apply([input], receivedAt, afterSettled);
          observer?.onInputsApplied?.([(items[i] as BatchItem).envelope.time]);
        } catch (alone) {
          outcomes[i] = isPermanentDatabaseError(alone) ? { kind: 'reject', reason: `PostgreSQL refused the input: ${permanentReason(alone)}` } : { kind: 'retry', reason: String(alone) };
        }
      }
    }
    return outcomes;
  }

  /**
   * The inputs of an amendment: one per run of an amending workflow whose data holds what the
   * amendment concerns (`amendmentConcerns`), finished or still running (a running run's definition
   * decides what the amendment does to the work in flight; a finished run's data only changes), each
   * with its own message id, so a redelivered amendment is a duplicate per run. A scan of the
   * workflow's runs' data: amendments are rare operator actions (a takedown), not a per-step cost.
   */
  private async amendmentInputs(envelope: Envelope, amenders: readonly AnySagaDefinition[]): Promise<PendingInput[]> {
    const inputs: PendingInput[] = [];
    for (const definition of amenders) {
      const needle = definition.amendmentConcerns?.(envelope);
      if (needle === undefined || needle.length === 0) continue;
      const rows = await this.dataSource.query<Array<{ id: string }>>(
        `select id from workflow_runs where type = $1 and strpos(data::text, $2) > 0`,
        [definition.type, needle],
      );
      for (const { id } of rows) inputs.push({ kind: 'input', meta: { messageId: `${envelope.id}:${id}`, runId: id }, input: { kind: 'event', envelope } });
    }
    return inputs;
  }

  /**
   * Applies inputs atomically, then hands the committed outbox to the relay without waiting for it.
   * `receivedAt`: when their messages arrived (absent for the coordinator's own inputs: timers).
   * `afterSettled` (a consumer's batch): the relay starts when the batch's messages are acked, so the
   * acks and the commands leave in one write to the server.
   */
  async apply(inputs: readonly PendingInput[], receivedAt?: number, afterSettled?: AfterSettled): Promise<void> {
    const { outbox, results, claimAnswers = [], earliestTimer } = await this.store.applyBatch(inputs);
    if (earliestTimer !== undefined) this.timers.wakeBy(earliestTimer);
    const observer = this.config.observer;
    observer?.onStepsApplied?.(stepsReport(inputs, { results, outbox }, this.decisions, Date.now(), receivedAt));
    if (observer?.onTransition !== undefined) {
      const applied = [...results.flatMap((result) => (result.status === 'applied' ? [result.applied] : [])), ...claimAnswers];
      for (const { transition, run } of applied) {
        if (transition !== undefined && run !== undefined) observer.onTransition(run.type, transition.to);
      }
    }
    const relay = (): void => {
      const publishing = this.relay.publishCommitted(outbox).catch((error: unknown) => {
        this.config.logger.error({ err: String(error) }, 'outbox fast path failed; the sweeper will retry');
      });
      this.inFlight.add(publishing);
      void publishing.finally(() => this.inFlight.delete(publishing));
    };
    if (outbox.length === 0) return;
    if (afterSettled === undefined) relay();
    else afterSettled(relay);
  }

  /** Readiness: NATS connected and PostgreSQL answering. */
  async checkReady(): Promise<void> {
    if (this.nc.isClosed()) throw new Error('NATS connection closed');
    await this.nc.flush();
    await this.dataSource.query('select 1');
  }

  async stop(): Promise<void> {
    await Promise.all(this.consumers.map((c) => c.stop()));
    await this.timers.stop();
    await Promise.all([...this.inFlight]);
    await this.relay.stop();
    await this.nc.drain();
    await this.store.close();
    await this.dataSource.destroy();
  }
}
