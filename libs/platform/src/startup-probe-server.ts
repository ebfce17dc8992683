import { createServer, type Server } from 'node:http';

/**
 * Answers the probes while a service is still starting (waiting for NATS or PostgreSQL): `/healthz`
 * 200 (the process is alive, do not restart it), `/readyz` 503 `starting` (send it no traffic), any
 * other path 503. Closed the moment the application itself listens on the port.
 */
export async function startStartupProbeServer(port: number, host: string, service: string): Promise<{ close(): Promise<void> }> {
  const startedAt = new Date().toISOString();
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const alive = path === '/healthz';
    response.writeHead(alive ? 200 : 503, { 'content-type': 'application/json', 'retry-after': '5' });
    response.end(JSON.stringify(alive ? { status: 'ok', phase: 'starting', service } : { status: 'starting', service, since: startedAt, detail: 'waiting for its dependencies (NATS, PostgreSQL)' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
