import { type DynamicModule, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { MESSAGE_PUBLISHER } from '@openpaw/messaging';
import { databaseReadiness, PlatformModule, ReadinessRegistry, ServiceMessagingModule } from '@openpaw/platform';
import type { DataSource } from 'typeorm';
import { AuthGuard } from './auth/auth.guard.js';
import { GATEWAY_CONFIG, type GatewayConfig } from './config.js';
import { RunEventBus } from './events/run-event-bus.js';
import { RunEventsSubscription } from './events/run-events.subscription.js';
import { HttpErrorFilter } from './http/http-error.filter.js';
import { databaseProviders, GATEWAY_DATA_SOURCE } from './projection/database.js';
import { ProjectionConsumer } from './projection/projection.consumer.js';
import { CancelRunHandler } from './runs/cancel-run/cancel-run.handler.js';
import { COMMAND_PUBLISHER } from './runs/ports.js';
import { RunEventsStream } from './runs/run-events/run-events.stream.js';
import { RunsController } from './runs/runs.controller.js';
import { RunSubmitter } from './runs/submit/run-submitter.js';

export const GATEWAY_SERVICE = 'gateway';

/**
 * The public HTTP API. Reads come from the gateway's own projection (schema `gateway`), built by a
 * durable consumer of the run events; live progress from a core NATS subscription; commands go to
 * the coordinator over JetStream. `RunSubmitter` is exported for workflow submission routes.
 */
@Module({})
export class GatewayModule implements OnModuleInit {
  constructor(
    private readonly readiness: ReadinessRegistry,
    @Inject(GATEWAY_DATA_SOURCE) private readonly dataSource: DataSource,
  ) {}

  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        PlatformModule.forService(GATEWAY_SERVICE),
        // Publishes commands and runs its own consumers (projection, live events); no @OnMessage handlers.
        ServiceMessagingModule.forService(GATEWAY_SERVICE, { natsUrl: config.natsUrl, provisionCommandsConsumer: false }),
      ],
      controllers: [RunsController],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: COMMAND_PUBLISHER, useExisting: MESSAGE_PUBLISHER },
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
        ...databaseProviders,
        RunEventBus,
        RunEventsSubscription,
        ProjectionConsumer,
        RunEventsStream,
        CancelRunHandler,
        RunSubmitter,
      ],
      exports: [RunSubmitter, RunEventBus, GATEWAY_CONFIG],
    };
  }

  onModuleInit(): void {
    this.readiness.register(databaseReadiness('database', this.dataSource));
  }
}
