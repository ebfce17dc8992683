import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { NestFactory, type IEntryNestModule } from '@nestjs/core';
import { Logger, PinoLogger } from 'nestjs-pino';
import { httpServerSpans } from './http-spans.js';
import { startStartupProbeServer } from './startup-probe-server.js';
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
}

export interface RunningService {
  readonly app: INestApplication;
  /** `http://host:port` the service listens on. */
  readonly url: string;
  readonly port: number;
}

/**
 * Creates (without listening) a service's Nest application: tracing context installed, logs through
 * pino, shutdown hooks on SIGTERM/SIGINT (providers' `onApplicationShutdown` drain consumers and
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

/**
 * The `main.ts` of a service: `startService`, and on a start-up failure a fatal log line and exit
 * code 1 (so an orchestrator restarts it).
 */
export async function bootstrapService(options: BootstrapOptions): Promise<RunningService> {
  try {
    return await startService(options);
  } catch (error) {
    const root = PinoLogger.root as PinoLogger['logger'] | undefined;
    if (root === undefined) console.error(`${options.name} failed to start`, error);
    else root.fatal({ err: error, service: options.name }, `${options.name} failed to start`);
    process.exit(1);
  }
}
