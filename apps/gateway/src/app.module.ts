import { type DynamicModule, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { ValidatedEnvelopes } from '@openpaw/messaging';
import { databaseReadiness, PlatformModule, ReadinessRegistry, ServiceMessagingModule } from '@openpaw/platform';
import type { DataSource } from 'typeorm';
import { AdmissionControl } from './admission/admission-control.js';
import { ADMISSION_LIMITS } from './admission/admission-limits.js';
import { AdmissionMetrics } from './admission/admission-metrics.js';
import { RunsModule } from './runs/runs.module.js';
import { ArtifactsApiModule } from './artifacts/artifacts-api.module.js';
import { RESEARCH_API_CONTROLLERS, RESEARCH_API_PROVIDERS } from './research/research-api.module.js';
import { OpsApiModule } from './ops/ops-api.module.js';
import { RunViewsApiModule } from './run-views/run-views-api.module.js';
import { AssetAccess } from './assets/asset-access.js';
import { AssetsController } from './assets/assets.controller.js';
import { AssetProjectionConsumer } from './assets/projection/asset-projection.consumer.js';
import { RunAssetsController } from './assets/run-assets.controller.js';
import { SharedController } from './assets/shared.controller.js';
import { AuthGuard } from './auth/auth.guard.js';
import { OidcSignInController } from './auth/oidc/oidc-sign-in.controller.js';
import type { GatewayConfig } from './config.js';
import { RunEventsSubscription } from './events/run-events.subscription.js';
import { HttpErrorFilter } from './http/http-error.filter.js';
import { GATEWAY_DATA_SOURCE } from './projection/database.js';
import { PAPER_SEARCHES_CONTROLLERS, PAPER_SEARCHES_PROVIDERS } from './paper-searches/paper-searches-api.js';
import { ProjectionConsumer } from './projection/projection.consumer.js';
import { RunEventApplier } from './projection/run-event-applier.js';
import { RunEtaEstimator } from './problems/eta/run-eta.js';
import { ProblemsController } from './problems/problems.controller.js';
import { DecideReadingHandler } from './problems/reading/decide-reading.handler.js';
import { HumanInputSubmitter } from './runs/human-input/human-input-submitter.js';
import { ReadingController } from './problems/reading/reading.controller.js';
import { SubmitProblemHandler } from './problems/submit-problem/submit-problem.handler.js';
import { ProblemUploadInterceptor } from './problems/upload/problem-upload.interceptor.js';
import { CancelRunHandler } from './runs/cancel-run/cancel-run.handler.js';
import { RunEventsStream } from './runs/run-events/run-events.stream.js';
import { RunsController } from './runs/runs.controller.js';
import { VisualDegreesEventsStream } from './visual-degrees/visual-degrees-events.stream.js';
import { VisualDegreesController } from './visual-degrees/visual-degrees.controller.js';
import { EvidenceThumbnailLinks } from './visual-degrees/evidence-thumbnails.js';

export const GATEWAY_SERVICE = 'gateway';

/**
 * The public HTTP API. Reads come from the gateway's own projection (schema `gateway`), built by a
 * durable consumer of the run events; live progress from a core NATS subscription; commands go to
 * the coordinator over JetStream. `RunSubmitter` is exported for workflow submission routes.
 * Problems (spec 01) are submitted at `POST /problems`; assets are served from the gateway's own
 * asset projection (fed by the assets service's events) and the shared blob store.
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
        ServiceMessagingModule.forService(GATEWAY_SERVICE, { ...config.messaging, natsUrl: config.natsUrl, provisionCommandsConsumer: false }),
        RunsModule.forRoot(config),
        ArtifactsApiModule.forRoot(config.artifactsApi),
        OpsApiModule,
        RunViewsApiModule,
      ],
      controllers: [
        ProblemsController,
        // Issue 25: read → confirm → solve.
        ReadingController,
        RunsController,
        RunAssetsController,
        AssetsController,
        SharedController,
        ...PAPER_SEARCHES_CONTROLLERS,
        // Spec 03.
        VisualDegreesController,
        // Spec 05.
        ...RESEARCH_API_CONTROLLERS,
        // Issue 17: the console's OIDC sign-in.
        OidcSignInController,
      ],
      providers: [
        { provide: ADMISSION_LIMITS, useValue: config.admission },
        AdmissionControl,
        AdmissionMetrics,
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
        RunEventApplier,
        // The live subscription validates a watched run's change; the projection consumer then takes it from here.
        { provide: ValidatedEnvelopes, useValue: new ValidatedEnvelopes() },
        RunEventsSubscription,
        ProjectionConsumer,
        RunEventsStream,
        CancelRunHandler,
        AssetProjectionConsumer,
        AssetAccess,
        RunEtaEstimator,
        SubmitProblemHandler,
        HumanInputSubmitter,
        DecideReadingHandler,
        ProblemUploadInterceptor,
        ...PAPER_SEARCHES_PROVIDERS,
        VisualDegreesEventsStream,
        EvidenceThumbnailLinks,
        ...RESEARCH_API_PROVIDERS,
      ],
    };
  }

  onModuleInit(): void {
    this.readiness.register(databaseReadiness('database', this.dataSource));
  }
}
