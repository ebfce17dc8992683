import {
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type InjectionToken,
  type ModuleMetadata,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
  type Provider,
} from '@nestjs/common';
import { DiscoveryModule, DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { ConnectionOptions, NatsConnection } from '@nats-io/nats-core';
import { catalog, CRITICAL_LANE, laneDurableOf, laneOf, lanesOfService, STREAMS, type AnyMessageDefinition } from '@openpaw/contracts';
import { type CommandReceiptStore, KvCommandReceiptStore, receiptRecorder } from '../command-receipts.js';
import { connectNats, ConnectionState } from '../connection.js';
import { jetstreamManagerWhenReady, whenJetStreamAnswers } from '../jetstream-when-ready.js';
import { startConsumer, DEFAULT_MAX_DELIVER, type ConsumerHandle } from '../consumer.js';
import { stderrLogger, type MessagingLogger, type MessagingObserver } from '../observability.js';
import type { BatchItem, HandlerOutcome, MessageContext, MessagePublisher } from '../ports.js';
import { consumerInfoIfExists, ensureConsumer, EVENTS_FILTER, laneFilterOf, provisionStreams, serviceEventsDurable } from '../provisioning.js';
import { JetStreamPublisher } from '../publisher.js';
import type { StreamProvisionOptions } from '../stream-settings.js';
import { ON_MESSAGE_METADATA } from './on-message.decorator.js';
import { MESSAGE_PUBLISHER, MESSAGING_OPTIONS, NATS_CONNECTION } from './tokens.js';

export interface MessagingModuleOptions {
  readonly natsUrl: string | readonly string[];
  /** The service name: `openpaw.cmd.<service>.>` are its commands, `svc-<service>` its durable. */
  readonly service: string;
  /** Consume at all (false for a publish-only process). Default true. */
  readonly consume?: boolean;
  /** Run the events consumer when some `@OnMessage` handles an event. Default true. */
  readonly consumeEvents?: boolean;
  /** Handlers in flight at once, per consumer. Default 8. */
  readonly concurrency?: number;
  /**
   * The command lanes this process consumes (a lane can run as its own process: the same app with
   * another role). Default: every lane the service has handlers for.
   */
  readonly lanes?: readonly string[];
  /** Handlers in flight at once per lane, overriding `concurrency` (e.g. `{ video: 1 }`). */
  readonly laneConcurrency?: Readonly<Record<string, number>>;
  /** Record command receipts (pickup times) for queue-aware step timeouts. Default true. */
  readonly commandReceipts?: boolean;
  /** A command still in its handler this long after pickup gets its receipt (`RECEIPT_AFTER_MS` by default; 0: every pickup). */
  readonly commandReceiptAfterMs?: number;
  /** Deliveries before a failing message is dead-lettered. Default 5. */
  readonly maxDeliver?: number;
  /** Nak delays by delivery count (the last repeats). */
  readonly backoffMs?: readonly number[];
  /** How long a delivery may go unacknowledged (long handlers are kept alive with `working()`). Default 30 s. */
  readonly ackWaitMs?: number;
  /** Server-side cap on unacknowledged deliveries across all instances of the service. Default 1000. */
  readonly maxAckPending?: number;
  /** Provision the streams on connect. Default true. */
  readonly provisionStreams?: boolean;
  /** How (default `create-missing`: never changes an existing stream) and with which settings. */
  readonly streams?: StreamProvisionOptions;
  readonly logger?: MessagingLogger;
  readonly observer?: MessagingObserver;
  /** Credentials, TLS, ...; passed to nats.js. */
  readonly connectOptions?: Partial<ConnectionOptions>;
}

export interface MessagingModuleAsyncOptions {
  readonly imports?: ModuleMetadata['imports'];
  readonly inject?: InjectionToken[];
  // Nest's own factory providers take `any[]`: a factory may name any injected type.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly useFactory: (...args: any[]) => MessagingModuleOptions | Promise<MessagingModuleOptions>;
}

const SERVICE_NAME = /^[a-z][a-z0-9-]*$/;

/** Readiness: whether the NATS connection is up (for @nestjs/terminus or a plain probe). */
@Injectable()
export class MessagingHealth {
  readonly #state: ConnectionState;

  constructor(@Inject(NATS_CONNECTION) nc: NatsConnection) {
    this.#state = new ConnectionState(nc);
  }

  isConnected(): boolean {
    return this.#state.isConnected();
  }
}

/** One lane's consumer as it stands in JetStream (flow-control metrics). */
export interface LaneBacklog {
  readonly lane: string;
  readonly durable: string;
  /** Stored, not yet delivered. */
  readonly pending: number;
  /** Delivered, not yet acknowledged (being handled). */
  readonly ackPending: number;
}

interface DiscoveredHandler {
  readonly definition: AnyMessageDefinition;
  readonly owner: string;
  readonly invoke: (envelope: BatchItem['envelope'], context: MessageContext) => Promise<HandlerOutcome | void>;
}

/** Finds `@OnMessage` methods, starts the service's consumers after bootstrap and stops them on shutdown. */
@Injectable()
export class MessagingHost implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  readonly #consumers: ConsumerHandle[] = [];
  /** Lane → durable of the lane consumers this process runs. */
  readonly #laneDurables = new Map<string, string>();
  #stopping: Promise<void> | undefined;

  constructor(
    @Inject(MESSAGING_OPTIONS) private readonly options: MessagingModuleOptions,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  /** The handlers found, by subject (for diagnostics and tests). */
  handlers(): ReadonlyMap<string, DiscoveredHandler> {
    const found = new Map<string, DiscoveredHandler>();
    const seen = new Set<object>();
    for (const wrapper of [...this.discovery.getProviders(), ...this.discovery.getControllers()]) {
      const instance: unknown = wrapper.instance;
      if (!wrapper.isDependencyTreeStatic() || typeof instance !== 'object' || instance === null || seen.has(instance)) continue;
      seen.add(instance);
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown> | null;
      if (prototype === null) continue;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const method = prototype[name];
        if (typeof method !== 'function') continue;
        const definition = this.reflector.get<AnyMessageDefinition | undefined>(ON_MESSAGE_METADATA, method);
        if (definition === undefined) continue;
        const owner = `${instance.constructor.name}.${name}`;
        const existing = found.get(definition.subject);
        if (existing !== undefined) {
          throw new Error(`${definition.subject} has two @OnMessage handlers (${existing.owner}, ${owner}); a service handles a message once`);
        }
        if (definition.kind === 'cmd' && definition.context !== this.options.service) {
          throw new Error(
            `${owner} handles ${definition.subject}, a command of service "${definition.context}", not of "${this.options.service}"`,
          );
        }
        const invoke = (method as DiscoveredHandler['invoke']).bind(instance);
        found.set(definition.subject, { definition, owner, invoke });
      }
    }
    return found;
  }

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.#startConsumers();
    } catch (error) {
      // A failed bootstrap is not followed by shutdown hooks: release what we hold, or the process hangs.
      await this.#stopConsumers();
      if (!this.nc.isClosed()) await this.nc.close();
      throw error;
    }
  }

  async #startConsumers(): Promise<void> {
    const handlers = this.handlers();
    if (this.options.consume === false || handlers.size === 0) return;
    const { service } = this.options;
    const commands = [...handlers.values()].filter((h) => h.definition.kind === 'cmd');
    const events = [...handlers.values()].filter((h) => h.definition.kind === 'evt');
    const logger = this.options.logger ?? stderrLogger;
    if (events.length > 0 && this.options.consumeEvents === false) {
      logger.warn({ service, subjects: events.map((h) => h.definition.subject) }, 'event handlers present but consumeEvents is false');
    }
    const jsm = await jetstreamManagerWhenReady(this.nc);
    const js = jetstream(this.nc);
    const maxDeliver = this.options.maxDeliver ?? DEFAULT_MAX_DELIVER;
    const handle = (item: BatchItem): Promise<HandlerOutcome | void> => {
      const handler = handlers.get(item.envelope.type);
      if (handler === undefined) return Promise.resolve({ kind: 'reject', reason: `no handler for ${item.envelope.type}` });
      return handler.invoke(item.envelope, item.context);
    };
    const start = async (
      stream: string,
      durable: string,
      filterSubject: string,
      group: readonly DiscoveredHandler[],
      extra: { readonly ignoreUnknownSubjects: boolean; readonly concurrency: number; readonly startSequence?: number } & Pick<
        Parameters<typeof startConsumer>[1],
        'otherLanesSubjects' | 'onPickup'
      >,
    ) => {
      await ensureConsumer(jsm, {
        stream,
        durable,
        filterSubject,
        // One more than ours: a delivery whose last attempt never settled is still seen, and dead-lettered.
        maxDeliver: maxDeliver + 1,
        ackWaitMs: this.options.ackWaitMs ?? 30_000,
        maxAckPending: this.options.maxAckPending ?? 1_000,
        ...(extra.startSequence === undefined ? {} : { startSequence: extra.startSequence }),
      });
      this.#consumers.push(
        await startConsumer(js, {
          stream,
          durable,
          definitions: group.map((h) => h.definition),
          handler: handle,
          concurrency: extra.concurrency,
          maxDeliver,
          ignoreUnknownSubjects: extra.ignoreUnknownSubjects,
          logger,
          ...(extra.otherLanesSubjects === undefined ? {} : { otherLanesSubjects: extra.otherLanesSubjects }),
          ...(extra.onPickup === undefined ? {} : { onPickup: extra.onPickup }),
          ...(this.options.backoffMs === undefined ? {} : { backoffMs: this.options.backoffMs }),
          ...(this.options.observer === undefined ? {} : { observer: this.options.observer }),
        }),
      );
    };
    const concurrencyOf = (lane: string): number => this.options.laneConcurrency?.[lane] ?? this.options.concurrency ?? 8;
    const lanesRun: string[] = [];
    if (commands.length > 0) {
      const receipts: CommandReceiptStore | undefined = this.options.commandReceipts === false ? undefined : await KvCommandReceiptStore.open(jsm);
      const serviceLanes = lanesOfService(catalog, service);
      const byLane = new Map<string, DiscoveredHandler[]>();
      for (const handler of commands) {
        const lane = laneOf(handler.definition) ?? CRITICAL_LANE;
        byLane.set(lane, [...(byLane.get(lane) ?? []), handler]);
      }
      const wanted = this.options.lanes;
      const unknown = (wanted ?? []).filter((lane) => !byLane.has(lane));
      if (unknown.length > 0) throw new Error(`service ${service} has no lane ${unknown.join(', ')} (lanes: ${[...byLane.keys()].join(', ')})`);
      const criticalDurable = laneDurableOf(service, CRITICAL_LANE);
      for (const [lane, group] of byLane) {
        if (wanted !== undefined && !wanted.includes(lane)) continue;
        const durable = laneDurableOf(service, lane);
        const subjects = group.map((h) => h.definition.subject);
        // The service's commands on other lanes (as the catalog declares them, and as its handlers do).
        const own = new Set([...(serviceLanes.get(lane) ?? []).map((d) => d.subject), ...subjects]);
        const everyCommand = [...[...serviceLanes.values()].flat(), ...commands.map((h) => h.definition)];
        const otherLanesSubjects = new Set(everyCommand.map((d) => d.subject).filter((subject) => !own.has(subject)));
        // A lane's durable created after the service ran with one consumer starts where that one had got to.
        const startSequence =
          lane === CRITICAL_LANE || (await consumerInfoIfExists(jsm, STREAMS.commands.name, durable)) !== undefined
            ? undefined
            : await this.#resumePointOf(jsm, criticalDurable);
        await start(STREAMS.commands.name, durable, laneFilterOf(service, lane, subjects), group, {
          ignoreUnknownSubjects: false,
          concurrency: concurrencyOf(lane),
          otherLanesSubjects,
          ...(startSequence === undefined ? {} : { startSequence }),
          ...(receipts === undefined ? {} : { onPickup: receiptRecorder(receipts, service, lane, logger, this.options.commandReceiptAfterMs) }),
        });
        this.#laneDurables.set(lane, durable);
        lanesRun.push(lane);
      }
    }
    if (events.length > 0 && this.options.consumeEvents !== false) {
      await start(STREAMS.events.name, serviceEventsDurable(service), EVENTS_FILTER, events, {
        ignoreUnknownSubjects: true,
        concurrency: this.options.concurrency ?? 8,
      });
    }
    logger.info({ service, commands: commands.length, events: events.length, lanes: lanesRun }, 'messaging consumers started');
  }

  async #resumePointOf(jsm: Awaited<ReturnType<typeof jetstreamManager>>, durable: string): Promise<number | undefined> {
    const info = await whenJetStreamAnswers(`consumer ${durable}`, () => consumerInfoIfExists(jsm, STREAMS.commands.name, durable));
    return info === undefined ? undefined : info.ack_floor.stream_seq + 1;
  }

  /** Backlog of each lane consumer this process runs, from JetStream (for metrics). */
  async laneBacklogs(): Promise<LaneBacklog[]> {
    if (this.#laneDurables.size === 0 || this.nc.isClosed()) return [];
    const jsm = await jetstreamManager(this.nc);
    const backlogs: LaneBacklog[] = [];
    for (const [lane, durable] of this.#laneDurables) {
      const info = await consumerInfoIfExists(jsm, STREAMS.commands.name, durable);
      if (info !== undefined) backlogs.push({ lane, durable, pending: info.num_pending, ackPending: info.num_ack_pending });
    }
    return backlogs;
  }

  /** Stops the consumers first, while the providers their handlers use are still up. */
  async onModuleDestroy(): Promise<void> {
    await this.#stopConsumers();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.#stopConsumers();
    if (!this.nc.isClosed() && !this.nc.isDraining()) await this.nc.drain();
  }

  #stopConsumers(): Promise<void> {
    this.#stopping ??= Promise.all(this.#consumers.map((c) => c.stop())).then(() => undefined);
    return this.#stopping;
  }
}

function coreProviders(): Provider[] {
  return [
    {
      provide: NATS_CONNECTION,
      inject: [MESSAGING_OPTIONS],
      useFactory: async (options: MessagingModuleOptions): Promise<NatsConnection> => {
        if (!SERVICE_NAME.test(options.service)) {
          throw new Error(`invalid service name "${options.service}": lower-case letters, digits and dashes`);
        }
        const nc = await connectNats({
          servers: options.natsUrl,
          name: options.service,
          ...(options.connectOptions === undefined ? {} : { connectOptions: options.connectOptions }),
        });
        try {
          if (options.provisionStreams !== false) {
            await provisionStreams(await jetstreamManagerWhenReady(nc), options.streams);
          }
        } catch (error) {
          await nc.close();
          throw error;
        }
        return nc;
      },
    },
    {
      provide: MESSAGE_PUBLISHER,
      inject: [NATS_CONNECTION],
      useFactory: (nc: NatsConnection): MessagePublisher => new JetStreamPublisher(jetstream(nc)),
    },
    MessagingHealth,
    MessagingHost,
  ];
}

const EXPORTS = [MESSAGE_PUBLISHER, NATS_CONNECTION, MessagingHealth, MessagingHost];

/**
 * JetStream for a NestJS service: connects (and provisions the streams), exports the publisher
 * (`MESSAGE_PUBLISHER`), the connection (`NATS_CONNECTION`) and `MessagingHealth`, and consumes
 * what the service's `@OnMessage` methods handle once the application is bootstrapped.
 */
@Module({})
export class MessagingModule {
  static forRoot(options: MessagingModuleOptions): DynamicModule {
    return {
      module: MessagingModule,
      global: true,
      imports: [DiscoveryModule],
      providers: [{ provide: MESSAGING_OPTIONS, useValue: options }, ...coreProviders()],
      exports: EXPORTS,
    };
  }

  static forRootAsync(options: MessagingModuleAsyncOptions): DynamicModule {
    return {
      module: MessagingModule,
      global: true,
      imports: [DiscoveryModule, ...(options.imports ?? [])],
      providers: [{ provide: MESSAGING_OPTIONS, inject: options.inject ?? [], useFactory: options.useFactory }, ...coreProviders()],
      exports: EXPORTS,
    };
  }
}
