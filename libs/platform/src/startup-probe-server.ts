import { createServer, type Server } from 'node:http';
import type { StartupProblem } from './startup-checks.js';

export interface StartupProbeServer {
  /** What `/readyz` names while a startup check fails (undefined: back to plain `starting`). */
  setProblem(problem: StartupProblem | undefined): void;
  close(): Promise<void>;
}

/**
 * Answers the probes while a service is still starting (waiting for NATS or PostgreSQL): `/healthz`
 * 200 (the process is alive, do not restart it), `/readyz` 503 `starting` (send it no traffic), any
 * other path 503; while a startup check fails, `/readyz` names the setting at fault. Closed the moment the
 * application itself listens on the port.
 */
export async function startStartupProbeServer(port: number, host: string, service: string): Promise<StartupProbeServer> {
  const startedAt = new Date().toISOString();
  let problem: StartupProblem | undefined;
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const alive = path === '/healthz';
    response.writeHead(alive ? 200 : 503, { 'content-type': 'application/json', 'retry-after': '5' });
    const notReady =
      problem === undefined
        ? { status: 'starting', service, since: startedAt, detail: 'waiting for its dependencies (NATS, PostgreSQL)' }
        : { status: 'not_ready', service, since: startedAt, setting: problem.setting, detail: problem.detail };
    response.end(JSON.stringify(alive ? { status: 'ok', phase: 'starting', service } : notReady));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    setProblem: (next) => {
      problem = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
