import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { MessageLogContext, MetricsMessagingObserver, PlatformMetrics, ReadinessRegistry } from '@openpaw/platform';
import { tableSizes } from '@openpaw/persistence';
import type { SagaRegistry } from '@openpaw/saga';
import type { CoordinatorSettings } from './config.js';
import { idleRuns, machineWorkStates } from './idle-runs.js';
import { CoordinatorRuntime } from './runtime/coordinator-runtime.js';
import { registerMessageBudgetMetrics } from './runtime/message-budget-metrics.js';

export const COORDINATOR_SETTINGS = Symbol('openpaw.coordinator.settings');
export const SAGA_REGISTRY = Symbol('openpaw.coordinator.registry');

/** The coordinator's tables that grow with traffic (sizes on /metrics; retention: tools/retention). */
const COORDINATOR_TABLES = ['coordinator.inbox', 'coordinator.outbox', 'coordinator.timers', 'coordinator.workflow_runs', 'coordinator.workflow_step_logs'];

/** Runs the coordinator runtime for the Nest app's lifetime, with metrics, logs and readiness. */
@Injectable()
export class CoordinatorService implements OnApplicationBootstrap, OnApplicationShutdown {
  private runtime: CoordinatorRuntime | undefined;
  private unregisterReadiness: (() => void) | undefined;

  constructor(
    @Inject(COORDINATOR_SETTINGS) private readonly settings: CoordinatorSettings,
    @Inject(SAGA_REGISTRY) private readonly registry: SagaRegistry,
    private readonly metrics: PlatformMetrics,
    private readonly log: MessageLogContext,
    private readonly readiness: ReadinessRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const metrics = this.metrics;
    const budget = registerMessageBudgetMetrics(metrics.registry);
    this.runtime = await CoordinatorRuntime.start({
      natsUrl: this.settings.natsUrl,
      databaseUrl: this.settings.databaseUrl,
      registry: this.registry,
      logger: this.log,
      messagingObserver: new MetricsMessagingObserver(metrics),
      observer: {
        onTransition: (type, state) => metrics.recordSagaTransition(type, state),
        onOutboxLag: (seconds) => metrics.recordOutboxLag(seconds),
        onTimerLag: (seconds) => metrics.recordTimerLag(seconds),
        onInputsApplied: (publishedAt) => budget.recordApplied(publishedAt, Date.now()),
        onStepsApplied: (report) => budget.recordSteps(report),
        onPublishFailed: (error) => this.log.warn({ err: String(error) }, 'outbox publish failed; will retry'),
      },
      maxBatch: this.settings.maxBatch,
      concurrency: this.settings.concurrency,
      timerIntervalMs: this.settings.timerIntervalMs,
      timerIdleMs: this.settings.timerIdleMs,
      poolSize: this.settings.poolSize,
      publishRunStateChangedV1: this.settings.publishRunStateChangedV1,
      streams: this.settings.streams,
    });
    const runtime = this.runtime;
    metrics.watchTableSizes(() => tableSizes(runtime.dataSource, COORDINATOR_TABLES));
    const machineWork = machineWorkStates(this.registry.all());
    metrics.watchIdleRuns(() => idleRuns(runtime.dataSource, machineWork));
    this.unregisterReadiness = this.readiness.register({ name: 'coordinator', check: () => runtime.checkReady() });
    this.log.info({ workflows: this.registry.all().map((d) => d.type) }, 'coordinator started');
  }

  async onApplicationShutdown(): Promise<void> {
    this.unregisterReadiness?.();
    await this.runtime?.stop();
    this.runtime = undefined;
  }
}
