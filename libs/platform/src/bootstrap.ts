import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { NestFactory, type IEntryNestModule } from '@nestjs/core';
import { Logger, PinoLogger } from 'nestjs-pino';
import { httpServerMetrics, httpServerSpans } from './http-spans.js';
import { PlatformMetrics } from './metrics.js';
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
   * setting, instead of exiting. `bootstrapService` passes the NATS check (and the PostgreSQL one with
   * `databaseUrl`); default none.
   */
  readonly startupChecks?: readonly StartupCheck[];
  /**
   * The service's database URL (its validated `OPENPAW_DATABASE_URL`), for services that have one:
   * `bootstrapService` then also checks that PostgreSQL answers and accepts the role before starting.
   */
  readonly databaseUrl?: string;
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
export async function startService(options: BootstrapOptions): Promise<RunningService> {
  const port = options.port ?? portFromEnv(options.defaultPort);
  const host = options.host ?? process.env['HOST'] ?? '127.0.0.1';
  // While the app waits for NATS/PostgreSQL (they may be down or recovering), the port answers the
  // probes: alive, not ready. (Port 0 means "any free port": nobody probes it before it is known.)
  const probes = port === 0 ? undefined : await startStartupProbeServer(port, host, options.name);
  let app: INestApplication;
  try {
    await passStartupChecks(options, probes);
    app = await createServiceApp(options);
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

/** Every startup check in turn until all pass; logs a problem when it appears or changes, and once a minute while it lasts. */
async function passStartupChecks(options: BootstrapOptions, probes: StartupProbeServer | undefined): Promise<void> {
  const interval = options.startupCheckIntervalMs ?? 2_000;
  let reported: { key: string; at: number } | undefined;
  for (;;) {
    let problem: StartupProblem | undefined;
    for (const check of options.startupChecks ?? []) {
      problem = await check();
      if (problem !== undefined) break;
    }
    probes?.setProblem(problem);
    if (problem === undefined) {
      if (reported !== undefined) logStartupProblem(options.name, undefined);
      return;
    }
    const key = `${problem.setting}: ${problem.detail}`;
    if (reported?.key !== key || Date.now() - reported.at >= 60_000) {
      logStartupProblem(options.name, problem);
      reported = { key, at: Date.now() };
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

/**
 * The `main.ts` of a service: `startService`, and on a start-up failure a fatal log line and exit
 * code 1 (so an orchestrator restarts it).
 */
export async function bootstrapService(options: BootstrapOptions): Promise<RunningService> {
  try {
    const defaultChecks = [natsStartupCheck(options.name), ...(options.databaseUrl === undefined ? [] : [databaseStartupCheck(options.databaseUrl)])];
    return await startService({ ...options, startupChecks: options.startupChecks ?? defaultChecks });
  } catch (error) {
    const root = PinoLogger.root as PinoLogger['logger'] | undefined;
    if (root === undefined) console.error(`${options.name} failed to start`, error);
    else root.fatal({ err: error, service: options.name }, `${options.name} failed to start`);
    process.exit(1);
  }
}
