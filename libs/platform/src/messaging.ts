import { type DynamicModule, Inject, Module, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { CRITICAL_LANE, STREAMS } from '@openpaw/contracts';
import {
  DEFAULT_MAX_DELIVER,
  ensureConsumer,
  jetstreamManagerWhenReady,
  MessagingHealth,
  MessagingHost,
  MessagingModule,
  type MessagingModuleOptions,
  NATS_CONNECTION,
  serviceCommandsDurable,
  serviceCommandsFilter,
} from '@openpaw/messaging';
import { ReadinessRegistry } from './health.js';
import { MessageLogContext } from './logging.js';
import { MetricsMessagingObserver } from './messaging-observer.js';
import { registerMessageCounters } from './message-counters.js';
import { PlatformMetrics } from './metrics.js';

/**
 * What the service's messaging runs with; the environment's part (`natsUrl`, `streams`, `lanes`,
 * `laneConcurrency`) comes from the service's settings (`serviceMessagingSettingsFromEnv`, read once at start).
 */
export type ServiceMessagingOptions = Partial<Omit<MessagingModuleOptions, 'service' | 'natsUrl'>> & {
  readonly natsUrl: MessagingModuleOptions['natsUrl'];
  /**
   * Create the service's durable commands consumer (`svc-<service>`) at start even when it has no
   * `@OnMessage` handlers yet, so commands sent to it wait in the stream until handlers exist.
   * Default: true when consuming.
   */
  readonly provisionCommandsConsumer?: boolean;
};

/** What provisioning the commands consumer needs: the service and the consumer settings messaging uses. */
interface CommandsConsumerPlan {
  /** Consuming, and the critical lane is one of this process's lanes. */
  readonly enabled: boolean;
  readonly service: string;
  readonly maxDeliver: number;
  readonly ackWaitMs: number;
  readonly maxAckPending: number;
}

const COMMANDS_CONSUMER_PLAN = Symbol('openpaw.platform.commandsConsumerPlan');

/**
 * `MessagingModule` for a service, wired to the platform: messages handled and dead-lettered feed
 * the shared metrics, messaging logs through the service's pino logger, and NATS connectivity is a
 * readiness check (`nats`), and the process's message counters (publishes, deliveries, validations,
 * commits: the message budget) are on `/metrics`. Import it next to `PlatformModule.forService(name)`, with the messaging
 * settings the service's config read at start (`{ ...settings.messaging }`): it reads no environment.
 */
@Module({})
export class ServiceMessagingModule implements OnModuleInit, OnApplicationBootstrap {
  constructor(
    private readonly readiness: ReadinessRegistry,
    private readonly health: MessagingHealth,
    private readonly host: MessagingHost,
    private readonly metrics: PlatformMetrics,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(COMMANDS_CONSUMER_PLAN) private readonly commandsConsumer: CommandsConsumerPlan,
  ) {}

  static forService(service: string, serviceOptions: ServiceMessagingOptions): DynamicModule {
    const { provisionCommandsConsumer, ...options } = serviceOptions;
    const runsCritical = options.lanes === undefined || options.lanes.includes(CRITICAL_LANE);
    return {
      module: ServiceMessagingModule,
      providers: [
        {
          provide: COMMANDS_CONSUMER_PLAN,
          useValue: {
            enabled: (provisionCommandsConsumer ?? options.consume !== false) && runsCritical,
            service,
            // The settings messaging's host provisions with, so whichever runs first, the other is a no-op.
            maxDeliver: (options.maxDeliver ?? DEFAULT_MAX_DELIVER) + 1,
            ackWaitMs: options.ackWaitMs ?? 30_000,
            maxAckPending: options.maxAckPending ?? 1_000,
          } satisfies CommandsConsumerPlan,
        },
      ],
      imports: [
        MessagingModule.forRootAsync({
          inject: [MetricsMessagingObserver, MessageLogContext],
          useFactory: (observer: MetricsMessagingObserver, logger: MessageLogContext): MessagingModuleOptions => ({
            observer,
            logger,
            ...options,
            service,
          }),
        }),
      ],
    };
  }

  onModuleInit(): void {
    this.metrics.readLaneBacklogsFrom(() => this.host.laneBacklogs());
    registerMessageCounters(this.metrics.registry);
    this.readiness.register({
      name: 'nats',
      check: () => {
        if (!this.health.isConnected()) throw new Error('not connected to NATS');
      },
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    const plan = this.commandsConsumer;
    if (!plan.enabled) return;
    await ensureConsumer(await jetstreamManagerWhenReady(this.nc), {
      stream: STREAMS.commands.name,
      durable: serviceCommandsDurable(plan.service),
      filterSubject: serviceCommandsFilter(plan.service),
      maxDeliver: plan.maxDeliver,
      ackWaitMs: plan.ackWaitMs,
      maxAckPending: plan.maxAckPending,
    });
  }
}
