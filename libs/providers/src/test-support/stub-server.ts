import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the stub server received it. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  json(): unknown;
}

export interface StubResponse {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** An object is sent as JSON; a string or Buffer as is. */
  readonly body?: unknown;
  /** Never answer (the client's timeout must fire). */
  readonly hang?: boolean;
}

export type StubHandler = (request: RecordedRequest) => StubResponse | Promise<StubResponse>;

export interface StubServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A node:http server on 127.0.0.1, port 0, for wire-level tests of real adapters: the handler
 * speaks the provider's documented format, every request is recorded for assertions.
 */
export async function startStubServer(handler: StubHandler): Promise<StubServer> {
  const requests: RecordedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        url: new URL(req.url ?? '/', 'http://127.0.0.1'),
        headers: req.headers,
        body,
        json: () => JSON.parse(body.toString('utf8')) as unknown,
      };
      requests.push(recorded);
      Promise.resolve()
        .then(() => handler(recorded))
        .then((response) => send(res, response, hanging))
        .catch((error: unknown) => send(res, { status: 599, body: { error: String(error) } }, hanging));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function send(res: ServerResponse, response: StubResponse, hanging: Set<ServerResponse>): void {
  if (response.hang === true) {
    hanging.add(res);
    return;
  }
  const body = response.body;
  const isRaw = typeof body === 'string' || Buffer.isBuffer(body);
  const payload = typeof body === 'string' || Buffer.isBuffer(body) ? body : body === undefined ? '' : JSON.stringify(body);
  res.writeHead(response.status ?? 200, {
    ...(isRaw || body === undefined ? {} : { 'content-type': 'application/json' }),
    ...response.headers,
  });
  res.end(payload);
}

/** A Clock whose sleeps return at once and are recorded; `now()` advances by what was slept. */
export function fakeClock(startMs = Date.UTC(2026, 0, 1)): { now(): number; sleep(ms: number): Promise<void>; readonly sleeps: number[] } {
  let now = startMs;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleep: (ms: number) => {
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
    sleeps,
  };
}

/** A stub server answering each request with the next scripted handler; reset before every test. */
export interface ScriptedStubServer {
  /** Handlers for the coming requests, in order; a request with none left fails the test. */
  readonly script: StubHandler[];
  readonly server: StubServer;
}

/**
 * Registers the suite's scripted stub server (started once, closed after the suite, script and
 * recorded requests cleared before each test). Call at the top level of a spec file.
 */
export function useScriptedStubServer(): ScriptedStubServer {
  const script: StubHandler[] = [];
  let server: StubServer | undefined;
  beforeAll(async () => {
    server = await startStubServer((request) => {
      const next = script.shift();
      if (next === undefined) throw new Error(`unexpected request ${request.method} ${request.url.pathname}`);
      return next(request);
    });
  });
  afterAll(async () => server?.close());
  beforeEach(() => {
    server?.requests.splice(0);
    script.length = 0;
  });
  return {
    script,
    get server(): StubServer {
      if (server === undefined) throw new Error('the stub server starts in beforeAll');
      return server;
    },
  };
}
