import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { NestFactory, type IEntryNestModule } from '@nestjs/core';
import { Logger, PinoLogger } from 'nestjs-pino';
import { httpServerMetrics, httpServerSpans } from './http-spans.js';
import { PlatformMetrics } from './metrics.js';
import { configurationProblem } from './configuration-problem.js';
import { databaseStartupCheck, natsStartupCheck, type StartupCheck, type StartupProblem } from './startup-checks.js';
import { startStartupProbeServer, type StartupProbeServer } from './startup-probe-server.js';
import { installTracing, shutdownTracing } from './tracing.js';

export interface ServiceAppOptions {
  /** The service's name (as given to `PlatformModule.forService`). */
  readonly name: string;
  /** The app module; it must import `PlatformModule.forService(name)`. */
  readonly module: IEntryNestModule;
  /** Adds what this service needs before listening (global pipes, filters, middleware, OpenAPI). */
  readonly configure?: (app: INestApplication) => void | Promise<void>;
}

export interface BootstrapOptions extends ServiceAppOptions {
  /** Port when `PORT` is not set. */
  readonly defaultPort: number;
  /** Overrides `PORT` (tests pass 0 for a free port). */
  readonly port?: number;
  /** Overrides `HOST` (default 127.0.0.1). */
  readonly host?: string;
  /**
   * Checked (again every `startupCheckIntervalMs`) before the application is created, while the port
   * answers alive/not ready: a wrong credential keeps the service waiting, not ready, naming the
   * setting, instead of exiting. Default none (`bootstrapService` checks NATS and PostgreSQL).
   */
  readonly startupChecks?: readonly StartupCheck[];
  /** Default 2000 ms. */
  readonly startupCheckIntervalMs?: number;
}

export interface RunningService {
  readonly app: INestApplication;
  /** `http://host:port` the service listens on. */
  readonly url: string;
  readonly port: number;
}

/**
 * Creates (without listening) a service's Nest application: tracing context installed, logs through
 * pino, each HTTP request in a SERVER span and on the metrics (rate, status, latency by route), shutdown hooks on SIGTERM/SIGINT (providers' `onApplicationShutdown` drain consumers and
 * close connections), open HTTP connections closed on shutdown (long-lived SSE streams included).
 */
export async function createServiceApp(options: ServiceAppOptions): Promise<INestApplication> {
  installTracing({ serviceName: options.name });
  const app = await NestFactory.create(options.module, {
    bufferLogs: true,
    abortOnError: false,
    forceCloseConnections: true,
  });
  app.useLogger(app.get(Logger));
  // First, so the request's logs, publishes and handlers run inside its SERVER span.
  app.use(httpServerSpans);
  app.use(httpServerMetrics(app.get(PlatformMetrics)));
  app.enableShutdownHooks();
  process.once('beforeExit', () => void shutdownTracing());
  await options.configure?.(app);
  return app;
}

function portFromEnv(defaultPort: number): number {
  const raw = process.env['PORT'];
  if (raw === undefined || raw === '') return defaultPort;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got "${raw}"`);
  return port;
}

/** Starts a service: creates the app, listens on `PORT`/`HOST` (default `defaultPort` on 127.0.0.1). */
export function startService(options: BootstrapOptions): Promise<RunningService> {
  const checks = options.startupChecks ?? [];
  return startServiceFromSettings({ ...options, settings: () => undefined, app: () => options, startupChecks: () => checks });
}

/** What a service runs, built from its validated settings. */
export interface ServiceDefinition extends Omit<ServiceAppOptions, 'name'> {
  /** The service's database URL (its validated `OPENPAW_DATABASE_URL`), for services that have one: checked before the app starts. */
  readonly databaseUrl?: string;
  /**
   * Checks of the service's own settings that can only be checked by trying them (e.g. a blob
   * directory's writability; see `settingCheck`): run before the NATS and PostgreSQL checks, so a bad
   * setting is named even while a dependency is down.
   */
  readonly startupChecks?: readonly StartupCheck[];
}

/** A service whose settings are read (and validated) while its port answers the probes. */
export interface ServiceFromSettingsOptions<S> extends Pick<BootstrapOptions, 'name' | 'defaultPort' | 'port' | 'host' | 'startupCheckIntervalMs'> {
  /**
   * Reads and validates the service's settings (from the environment); throws naming the variable at
   * fault. Read again at every check until it passes (settings read from mounted files can be fixed in place).
   */
  readonly settings: () => S;
  /** The service built from valid settings (side-effect free: no connection is made before the checks pass). */
  readonly app: (settings: S) => ServiceDefinition;
  /** The checks to pass once the settings are valid (default: `bootstrapService`'s NATS and PostgreSQL checks). */
  readonly startupChecks?: (service: ServiceDefinition) => readonly StartupCheck[];
}

function defaultStartupChecks(name: string): (service: ServiceDefinition) => readonly StartupCheck[] {
  return (service) => [natsStartupCheck(name), ...(service.databaseUrl === undefined ? [] : [databaseStartupCheck(service.databaseUrl)])];
}

/**
 * Starts a service from its settings: while they are invalid (a Secret's key missing, a malformed
 * value) or a dependency is not usable, the port answers alive/not ready naming the setting, and the
 * application is not created, so nothing is served or consumed with bad settings. Only a `PORT` that
 * is not a port exits at once: without a port nothing can answer the probes.
 */
export async function startServiceFromSettings<S>(options: ServiceFromSettingsOptions<S>): Promise<RunningService> {
  const port = options.port ?? portFromEnv(options.defaultPort);
  const host = options.host ?? process.env['HOST'] ?? '127.0.0.1';
  // While the app waits for NATS/PostgreSQL (they may be down or recovering), the port answers the
  // probes: alive, not ready. (Port 0 means "any free port": nobody probes it before it is known.)
  const probes = port === 0 ? undefined : await startStartupProbeServer(port, host, options.name);
  let app: INestApplication;
  try {
    const service = await passStartupChecks(options, probes);
    app = await createServiceApp({ name: options.name, ...service });
  } finally {
    await probes?.close();
  }
  try {
    await app.listen(port, host);
  } catch (error) {
    await app.close();
    throw error;
  }
  const address = (app.getHttpServer() as Server).address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  app.get(Logger).log(`${options.name} listening on ${url}`, 'Bootstrap');
  return { app, url, port: address.port };
}

/** A line in pino's JSON shape (the app's logger does not exist yet), on stderr. */
function logStartupProblem(service: string, problem: StartupProblem | undefined): void {
  const line =
    problem === undefined
      ? { level: 30, time: Date.now(), service, msg: `${service}: startup checks pass, starting` }
      : { level: 50, time: Date.now(), service, setting: problem.setting, msg: `${service} not ready: ${problem.setting}: ${problem.detail}` };
  process.stderr.write(`${JSON.stringify(line)}\n`);
}

/**
 * The settings, then every startup check in turn, until all pass; logs a problem when it appears or
 * changes, and once a minute while it lasts. Returns the service built from the valid settings.
 */
async function passStartupChecks<S>(options: ServiceFromSettingsOptions<S>, probes: StartupProbeServer | undefined): Promise<ServiceDefinition> {
  const interval = options.startupCheckIntervalMs ?? 2_000;
  const checksOf = options.startupChecks ?? defaultStartupChecks(options.name);
  let configured: { service: ServiceDefinition; checks: readonly StartupCheck[] } | undefined;
  let reported: { key: string; at: number } | undefined;
  for (;;) {
    let problem: StartupProblem | undefined;
    if (configured === undefined) {
      try {
        const service = options.app(options.settings());
        configured = { service, checks: [...(service.startupChecks ?? []), ...checksOf(service)] };
      } catch (error) {
        problem = configurationProblem(error, process.env);
      }
    }
    for (const check of configured?.checks ?? []) {
      problem = await check();
      if (problem !== undefined) break;
    }
    probes?.setProblem(problem);
    if (problem === undefined && configured !== undefined) {
      if (reported !== undefined) logStartupProblem(options.name, undefined);
      return configured.service;
    }
    if (problem !== undefined) {
      const key = `${problem.setting}: ${problem.detail}`;
      if (reported?.key !== key || Date.now() - reported.at >= 60_000) {
        logStartupProblem(options.name, problem);
        reported = { key, at: Date.now() };
      }
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

/**
 * The `main.ts` of a service: `startServiceFromSettings` with the NATS check (and the PostgreSQL one
 * when the service has a database URL). Invalid settings and unusable dependencies keep it alive and
 * not ready; any other start-up failure (a `PORT` that is not a port, the application failing to
 * build) is a fatal log line and exit code 1, so an orchestrator restarts it: a half-built
 * application may hold connections and consumers, and is not retried in place.
 */
export async function bootstrapService<S>(options: ServiceFromSettingsOptions<S>): Promise<RunningService> {
  try {
    return await startServiceFromSettings(options);
  } catch (error) {
    const root = PinoLogger.root as PinoLogger['logger'] | undefined;
    if (root === undefined) console.error(`${options.name} failed to start`, error);
    else root.fatal({ err: error, service: options.name }, `${options.name} failed to start`);
    process.exit(1);
  }
}
