import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { freshDatabase, type NatsServerHandle, privateNatsServer, type RunningPlatform, startPlatformProcesses } from '@openpaw/testing';
import { signAccessToken } from '../auth/tokens.js';
import { arbitraryOf, type JsonSchemaNode } from '../testing/openapi-arbitraries.js';

const root = join(import.meta.dirname, '../../../..');

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly parameters?: readonly { readonly in: string; readonly name: string; readonly required?: boolean; readonly schema?: JsonSchemaNode }[];
  readonly requestBody?: { readonly content?: Record<string, { readonly schema?: JsonSchemaNode }> };
}

const openapi = JSON.parse(readFileSync(join(root, 'apps/gateway/openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>>;
  components?: { schemas?: Record<string, JsonSchemaNode> };
};
const resolve = (ref: string): JsonSchemaNode => openapi.components?.schemas?.[ref.replace('#/components/schemas/', '')] ?? {};
const OPERATIONS: readonly Operation[] = Object.entries(openapi.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ ...operation, method: method.toUpperCase(), path })));

/** Routes that start a run: a request they accept must show its run (GET /runs/:id) soon after. */
const STARTS_A_RUN = new Set(['POST /problems', 'POST /research', 'POST /paper-searches', 'POST /visual-degrees']);
/** Requests per operation, and per operation that starts a run (short: this runs in CI). */
const RUNS_PER_OPERATION = 10;
const RUNS_PER_START = 30;
const VISIBLE_WITHIN_MS = 30_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Answer {
  readonly operation: string;
  readonly request: string;
  readonly status: number;
  readonly body: unknown;
}

/**
 * Every operation of the gateway's OpenAPI, called with generated and mutated JSON bodies, path
 * parameters and queries (issue 26): no answer is a 5xx; every 400 names what it refuses; every
 * accepted start of a run shows the run. Coordinator and gateway run as processes, so an accepted
 * start goes all the way to the projection (the NUL in a research title was accepted, retried 10
 * times by the coordinator and never seen).
 */
describe('fuzzing every operation of the OpenAPI (gateway + coordinator processes)', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let token: string;

  beforeAll(async () => {
    nats = await privateNatsServer();
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('e2e_openapi_fuzz'),
      // Artifacts answers the synchronous chat; the others' runs only need to become visible.
      services: ['coordinator', 'artifacts', 'gateway'],
      env: { OPENPAW_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
      serviceEnv: { gateway: { OPENPAW_ADMISSION_JSON: JSON.stringify({ tiers: { free: { ratePerSecond: 1_000, burst: 1_000, maxInFlight: 1_000 } } }) } },
    });
    token = await signAccessToken({ secret: platform.jwtSecret, issuer: 'openpaw', audience: 'openpaw-api' }, 'fuzz-user');
  });

  afterAll(async () => {
    await platform?.stop();
    await nats?.dispose();
  });

  async function call(operation: Operation, pathValues: Readonly<Record<string, string>>, query: Readonly<Record<string, string | undefined>>, body: unknown): Promise<Answer> {
    const path = operation.path.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(wellFormed(pathValues[name] ?? 'x')));
    const search = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined)).toString();
    const url = `${platform.gatewayUrl}${path}${search === '' ? '' : `?${search}`}`;
    const described = `${operation.method} ${path}${search === '' ? '' : `?${search}`} ${JSON.stringify(body)?.slice(0, 300) ?? ''}`;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 20_000);
    let response: Response;
    try {
      response = await fetch(url, {
        method: operation.method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: controller.signal,
      });
    } catch (error) {
      return { operation: `${operation.method} ${operation.path}`, request: described, status: 0, body: `no answer: ${String(error)}` };
    } finally {
      clearTimeout(timer);
    }
    if (response.headers.get('content-type')?.includes('text/event-stream') === true) await response.body?.cancel();
    const text = response.bodyUsed || response.body?.locked === true ? '' : await response.text().catch(() => '');
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Not JSON: kept as text for the report.
    }
    return { operation: `${operation.method} ${operation.path}`, request: described, status: response.status, body: parsed };
  }

  it('answers no 5xx, names what a 400 refuses, and shows every run it accepted', async () => {
    const failures: string[] = [];
    const accepted: { readonly runId: string; readonly request: string }[] = [];
    let calls = 0;
    for (const operation of OPERATIONS) {
      const parameters = operation.parameters ?? [];
      const pathParameters = parameters.filter((p) => p.in === 'path');
      const queryParameters = parameters.filter((p) => p.in === 'query');
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
      const request = fc.record({
        pathValues: fc.record(Object.fromEntries(pathParameters.map((p) => [p.name, fc.oneof(fc.uuid(), fc.string({ maxLength: 20 }), p.schema === undefined ? fc.uuid() : arbitraryOf(p.schema, resolve).map(String))]))),
        query: fc.record(Object.fromEntries(queryParameters.map((p) => [p.name, fc.oneof(fc.string({ maxLength: 12 }), p.schema === undefined ? fc.string() : arbitraryOf(p.schema, resolve).map(String))])), { requiredKeys: [] }),
        body: bodySchema === undefined ? fc.constant(undefined) : arbitraryOf(bodySchema, resolve),
      });
      const runs = STARTS_A_RUN.has(`${operation.method} ${operation.path}`) ? RUNS_PER_START : RUNS_PER_OPERATION;
      const samples = fc.sample(request, { numRuns: runs, seed: 2026 + calls });
      for (const sample of samples) {
        calls += 1;
        const answer = await call(operation, sample.pathValues, sample.query, sample.body);
        const problem = problemOf(answer);
        if (problem !== undefined) failures.push(`${answer.request} → ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 300)}: ${problem}`);
        if (STARTS_A_RUN.has(answer.operation) && answer.status >= 200 && answer.status < 300) {
          const body = answer.body as { run_id?: unknown; id?: unknown } | undefined;
          const runId = body?.run_id ?? body?.id;
          if (typeof runId === 'string' && UUID.test(runId)) accepted.push({ runId, request: answer.request });
        }
      }
    }
    // Every accepted start is a run its user can see.
    const deadline = Date.now() + VISIBLE_WITHIN_MS;
    const unseen = new Set(accepted.map((a) => a.runId));
    while (unseen.size > 0 && Date.now() < deadline) {
      for (const runId of [...unseen]) {
        const response = await fetch(`${platform.gatewayUrl}/runs/${runId}`, { headers: { authorization: `Bearer ${token}` } });
        if (response.status === 200) unseen.delete(runId);
      }
      if (unseen.size > 0) await new Promise((done) => setTimeout(done, 500));
    }
    for (const { runId, request } of accepted) if (unseen.has(runId)) failures.push(`${request} was accepted, but run ${runId} was not visible within ${VISIBLE_WITHIN_MS} ms`);
    console.log(`OpenAPI fuzz: ${calls} requests over ${OPERATIONS.length} operations, ${accepted.length} runs started, ${failures.length} failures`);
    expect(failures).toEqual([]);
    expect(accepted.length).toBeGreaterThan(0);
  });
});

/** A string as UTF-8 can carry it (lone surrogates become U+FFFD), for a URL. */
function wellFormed(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** What is wrong with an answer, if anything. */
function problemOf(answer: Answer): string | undefined {
  if (answer.status === 0) return 'no answer within 20 s';
  if (answer.status >= 500) return 'a 5xx';
  if (answer.status === 400 || answer.status === 422) {
    const body = answer.body as { error?: unknown; issues?: readonly { path?: unknown; message?: unknown }[]; message?: unknown } | undefined;
    if (typeof body?.error !== 'string' || typeof body.message !== 'string' && body.error !== 'validation_failed') return 'a 4xx without an error code and a message';
    // A refused field is named by its path; a refused body as a whole says so.
    const issues: readonly { path?: unknown; message?: unknown }[] = Array.isArray(body.issues) ? body.issues : [];
    if (body.error === 'validation_failed' && !(issues.length > 0 && issues.every((issue) => typeof issue.path === 'string' && typeof issue.message === 'string' && issue.message !== ''))) {
      return 'a validation failure that names no field';
    }
    if (body.error === 'malformed_json' && !String(body.message).includes('request body')) return 'a malformed body not named as such';
  }
  return undefined;
}
