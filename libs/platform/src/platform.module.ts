import { type DynamicModule, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { LoggerModule } from 'nestjs-pino';
import { HealthController, MetricsController, type ReadinessCheck, ReadinessRegistry, SERVICE_NAME } from './health.js';
import { InternalHttpServer } from './internal-server.js';
import { loggerParams, MessageLogContext } from './logging.js';
import { MetricsMessagingObserver } from './messaging-observer.js';
import { PlatformMetrics } from './metrics.js';

export interface PlatformOptions {
  /** Readiness checks known at module definition time; modules may add more to `ReadinessRegistry`. */
  readonly readiness?: readonly ReadinessCheck[];
  /** Log level; default `LOG_LEVEL` or `info`. */
  readonly logLevel?: string;
  /** Collect prom-client's default process metrics (default true). */
  readonly defaultMetrics?: boolean;
  /**
   * After SIGTERM, how long `/readyz` answers `shutting_down` before the app closes, so a load
   * balancer stops routing first (default `SHUTDOWN_GRACE_MS` or 0).
   */
  readonly shutdownGraceMs?: number;
}

const INITIAL_CHECKS = Symbol('openpaw.platform.initialReadinessChecks');

/**
 * What every OpenPaw service gets: JSON logs (nestjs-pino), `/healthz`, `/readyz` (terminus, over
 * the registered readiness checks), `/metrics` (the shared Prometheus metric set), the metrics
 * adapter for messaging and the per-message log context. Global: import it once, in the app module.
 */
@Module({})
export class PlatformModule implements OnModuleInit {
  constructor(
    private readonly registry: ReadinessRegistry,
    @Inject(INITIAL_CHECKS) private readonly initialChecks: readonly ReadinessCheck[],
  ) {}

  static forService(service: string, options: PlatformOptions = {}): DynamicModule {
    const graceEnv = Number(process.env['SHUTDOWN_GRACE_MS'] ?? '0');
    return {
      module: PlatformModule,
      global: true,
      imports: [
        LoggerModule.forRoot(loggerParams(service, options.logLevel === undefined ? {} : { level: options.logLevel })),
        TerminusModule.forRoot({
          errorLogStyle: 'json',
          gracefulShutdownTimeoutMs: options.shutdownGraceMs ?? (Number.isFinite(graceEnv) ? graceEnv : 0),
        }),
      ],
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: SERVICE_NAME, useValue: service },
        { provide: INITIAL_CHECKS, useValue: options.readiness ?? [] },
        {
          provide: PlatformMetrics,
          useFactory: () =>
            new PlatformMetrics(service, options.defaultMetrics === undefined ? {} : { defaultMetrics: options.defaultMetrics }),
        },
        {
          provide: MetricsMessagingObserver,
          useFactory: (metrics: PlatformMetrics) => new MetricsMessagingObserver(metrics),
          inject: [PlatformMetrics],
        },
        ReadinessRegistry,
        MessageLogContext,
        InternalHttpServer,
      ],
      exports: [SERVICE_NAME, PlatformMetrics, MetricsMessagingObserver, ReadinessRegistry, MessageLogContext, LoggerModule, InternalHttpServer],
    };
  }

  onModuleInit(): void {
    for (const check of this.initialChecks) this.registry.register(check);
  }
}
