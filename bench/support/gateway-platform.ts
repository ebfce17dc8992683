import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { createDatabase, type RunningPlatform, type ServiceName, startNatsServer, startPlatformProcesses, startPostgresServer } from '@openpaw/testing';
import { SignJWT } from 'jose';

/** What POST /problems?wait answers, as far as the benches read it. */
export interface SubmittedRun {
  readonly run_id: string;
  readonly result?: { readonly outcome?: string; readonly status?: string; readonly output?: { readonly asset_version_id?: string }; readonly cost_usd?: number };
}

export interface BenchPlatform {
  readonly platform: RunningPlatform;
  /** The bench database (the coordinator's step log is read from it). */
  readonly databaseUrl: string;
  /** POST /problems?wait=30 as the bench user; throws on a non-2xx answer. `ms` is the round trip. */
  readonly submit: (text: string, intent?: string) => Promise<{ readonly ms: number; readonly body: SubmittedRun }>;
  /** GET a gateway path as the bench user. */
  readonly get: (path: string) => Promise<Response>;
  readonly stop: () => Promise<void>;
}

export interface BenchPlatformOptions {
  /** The checkout whose dist/ is run (default: this one). */
  readonly root?: string;
  readonly services: readonly ServiceName[];
  readonly env?: Readonly<Record<string, string>>;
  readonly nodeArgs?: readonly string[];
  readonly databaseName: string;
  /** More PostgreSQL settings (e.g. `pg_stat_statements` for `--pg-statements`). */
  readonly postgresSettings?: Readonly<Record<string, string>>;
}

/** The checkout this bench was built from (dist/bench/<dir>/<file>.js → the repository root). */
export const THIS_CHECKOUT = join(import.meta.dirname, '../../..');

/**
 * The platform benches measure through the gateway: a private nats-server, PostgreSQL with fsync on,
 * every named service as its own process, and a bench user's bearer token.
 */
export async function startBenchPlatform(options: BenchPlatformOptions): Promise<BenchPlatform> {
  const nats = await startNatsServer();
  const postgres = await startPostgresServer({ fsync: true, ...(options.postgresSettings === undefined ? {} : { settings: options.postgresSettings }) });
  let databaseUrl: string;
  let platform: RunningPlatform;
  try {
    databaseUrl = await createDatabase(postgres.adminUrl, options.databaseName);
    platform = await startPlatformProcesses({
      root: options.root ?? THIS_CHECKOUT,
      natsUrl: nats.url,
      databaseUrl,
      services: [...options.services],
      ...(options.nodeArgs === undefined ? {} : { nodeArgs: [...options.nodeArgs] }),
      ...(options.env === undefined ? {} : { env: { ...options.env } }),
    });
  } catch (error) {
    // A service that would not start (a missing build, a bad setting) leaves no server of the bench running.
    await Promise.all([nats.dispose(), postgres.dispose()]);
    throw error;
  }
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('bench')
    .setIssuer('openpaw')
    .setAudience('openpaw-api')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(platform.jwtSecret));
  const get = (path: string): Promise<Response> => fetch(`${platform.gatewayUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  // node:http on kept-alive sockets, not fetch: the bench's client shares the platform's two cores, and
  // fetch cost it ~1.7 ms of CPU per request at 100/s (measured on the cached hit path).
  // An idle socket is closed here after 4 s, before the gateway's keep-alive timeout (Node's 5 s) closes
  // it under a request: between the bench's phases every socket sits idle.
  const agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: 4_000 });
  const submit = async (text: string, intent = 'solve'): Promise<{ ms: number; body: SubmittedRun }> => {
    const t = performance.now();
    const { status, text: answer } = await postJson(agent, `${platform.gatewayUrl}/problems?wait=30`, token, JSON.stringify({ text, intent }));
    if (status < 200 || status > 299) throw new Error(`POST /problems answered ${status}: ${answer}`);
    const body = JSON.parse(answer) as SubmittedRun;
    return { ms: performance.now() - t, body };
  };
  const stop = async (): Promise<void> => {
    agent.destroy();
    await platform.stop();
    await Promise.all([nats.dispose(), postgres.dispose()]);
  };
  return { platform, databaseUrl, submit, get, stop };
}

/**
 * POSTs a JSON body with a bearer token and answers the status and the body's text. A kept-alive
 * socket the server closed as the request went out (its keep-alive timeout; likelier on a loaded
 * machine, where the client reads the close late) is reset: that request never reached a handler and
 * is sent once more on a new connection of its own (`request.reusedSocket`, as Node's documentation
 * advises; not the pool, whose other idle sockets may be just as stale).
 */
async function postJson(agent: Agent, url: string, token: string, body: string): Promise<{ readonly status: number; readonly text: string }> {
  try {
    return await postJsonOnce(agent, url, token, body);
  } catch (error) {
    if (!(error instanceof ResetReusedSocket)) throw error;
    return postJsonOnce(false, url, token, body);
  }
}

/** A kept-alive socket reset before any of the response arrived. */
class ResetReusedSocket extends Error {}

function postJsonOnce(agent: Agent | false, url: string, token: string, body: string): Promise<{ readonly status: number; readonly text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      reject(outgoing.reusedSocket && error.code === 'ECONNRESET' ? new ResetReusedSocket(`${url}: kept-alive socket reset`, { cause: error }) : error),
    );
    outgoing.end(body);
  });
}
