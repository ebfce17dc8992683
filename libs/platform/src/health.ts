import { Controller, Get, Inject, Injectable, Res, SetMetadata } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, type HealthCheckResult, HealthIndicatorService } from '@nestjs/terminus';
import type { Response } from 'express';
import { InternalHttpServer } from './internal-server.js';
import { PlatformMetrics } from './metrics.js';

/** Injection token of the service's name (`PlatformModule.forService(name)`). */
export const SERVICE_NAME = Symbol('openpaw.platform.serviceName');

/** Metadata key marking a route that needs no authentication (probes, metrics, docs). */
export const PUBLIC_ROUTE = 'openpaw:publicRoute';
/** Marks a controller or handler as reachable without a bearer token. */
export const PublicRoute = (): ReturnType<typeof SetMetadata> => SetMetadata(PUBLIC_ROUTE, true);

/** One dependency the service needs before it can take traffic (NATS connected, database reachable). */
export interface ReadinessCheck {
  readonly name: string;
  /** Resolves (optionally with details) when the dependency is usable; throws when it is not. */
  check(options: { readonly signal: AbortSignal }): Promise<Record<string, unknown> | void> | Record<string, unknown> | void;
  /** Default 2000 ms. */
  readonly timeoutMs?: number;
}

/**
 * The readiness checks of this service. Checks passed to `PlatformModule.forService` are
 * registered at start; modules owning a connection register theirs (e.g. in `onModuleInit`).
 */
@Injectable()
export class ReadinessRegistry {
  private readonly checks = new Map<string, ReadinessCheck>();

  /** Adds (or replaces, by name) a check; returns a function that removes it. */
  register(check: ReadinessCheck): () => void {
    this.checks.set(check.name, check);
    return () => {
      if (this.checks.get(check.name) === check) this.checks.delete(check.name);
    };
  }

  list(): readonly ReadinessCheck[] {
    return [...this.checks.values()];
  }
}

/** Readiness of a TypeORM data source (or anything with `query`): `select 1` answers. */
export function databaseReadiness(name: string, database: { query(sql: string): Promise<unknown> }): ReadinessCheck {
  return {
    name,
    check: async () => {
      await database.query('select 1');
    },
  };
}

/** Readiness of a NATS connection: open, and a flush (a PING/PONG round trip) completes. */
export function natsReadiness(name: string, connection: { isClosed(): boolean; flush(): Promise<void> }): ReadinessCheck {
  return {
    name,
    check: async () => {
      if (connection.isClosed()) throw new Error('connection closed');
      await connection.flush();
    },
  };
}

@ApiTags('platform')
@PublicRoute()
@Controller()
export class HealthController {
  constructor(
    @Inject(SERVICE_NAME) private readonly service: string,
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly readiness: ReadinessRegistry,
  ) {}

  /** Liveness: the process answers. Dependencies do not count (that is readiness). */
  @Get('healthz')
  @ApiOkResponse({ description: 'The process is alive.' })
  liveness(): { status: 'ok'; service: string } {
    return { status: 'ok', service: this.service };
  }

  /** Readiness: every registered dependency answers; 503 otherwise. */
  @Get('readyz')
  @HealthCheck()
  @ApiOkResponse({ description: 'Every dependency is reachable.' })
  @ApiServiceUnavailableResponse({ description: 'A dependency is down, or the service is shutting down.' })
  readinessCheck(): Promise<HealthCheckResult> {
    return this.health.check(
      this.readiness.list().map(
        (check) => () =>
          this.indicators
            .check(check.name)
            .attempt((options) => check.check(options))
            .withTimeout(check.timeoutMs ?? 2000),
      ),
    );
  }
}

@PublicRoute()
@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: PlatformMetrics,
    private readonly internal: InternalHttpServer,
  ) {}

  /** Prometheus exposition of the service's registry (404 here when it lives on the internal port). */
  @Get('metrics')
  @ApiExcludeEndpoint()
  async scrape(@Res() response: Response): Promise<void> {
    if (this.internal.enabled) {
      response.status(404).json({ statusCode: 404, message: 'Cannot GET /metrics' });
      return;
    }
    const { contentType, body } = await this.metrics.scrape();
    response.status(200).type(contentType).send(body);
  }
}
