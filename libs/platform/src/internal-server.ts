import { createServer, type Server } from 'node:http';
import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PlatformMetrics } from './metrics.js';

/** `METRICS_PORT`: the internal port for `/metrics` (and the gateway's OpenAPI JSON); unset = everything on the public port. */
export function internalPortFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env['METRICS_PORT'];
  if (raw === undefined || raw.trim() === '') return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`METRICS_PORT must be a port number, got "${raw}"`);
  return port;
}

export interface InternalResponse {
  readonly contentType: string;
  readonly body: string;
}

/**
 * What the internal port serves: `/metrics` (Prometheus), plus routes a service adds (the gateway's
 * `/docs/openapi.json`). Only in-cluster scrapers reach it (NetworkPolicy in deploy/); the public
 * port then answers 404 for these paths.
 */
@Injectable()
export class InternalHttpServer implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly port: number | undefined = internalPortFromEnv();
  readonly #routes = new Map<string, () => Promise<InternalResponse>>();
  #server: Server | undefined;

  constructor(metrics: PlatformMetrics) {
    this.add('/metrics', () => metrics.scrape());
  }

  /** Whether `/metrics` and the like live on the internal port (and not on the public one). */
  get enabled(): boolean {
    return this.port !== undefined;
  }

  add(path: string, handler: () => Promise<InternalResponse>): void {
    this.#routes.set(path, handler);
  }

  /** The bound port (after bootstrap), e.g. when `METRICS_PORT=0`. */
  boundPort(): number | undefined {
    const address = this.#server?.address();
    return typeof address === 'object' && address !== null ? address.port : undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.port === undefined) return;
    const server = createServer((request, response) => {
      const handler = request.method === 'GET' ? this.#routes.get((request.url ?? '').split('?')[0] ?? '') : undefined;
      if (handler === undefined) {
        response.writeHead(404).end();
        return;
      }
      handler().then(
        ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType }).end(body),
        () => response.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, process.env['HOST'] ?? '127.0.0.1', resolve);
    });
    this.#server = server;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
