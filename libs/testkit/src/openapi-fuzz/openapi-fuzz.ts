import fc from 'fast-check';
import { arbitraryOf, type JsonSchemaNode } from './openapi-arbitraries.js';

/** The parts of an OpenAPI 3 document the fuzz reads. */
export interface OpenApiDocument {
  readonly paths: Record<string, Record<string, { readonly parameters?: Operation['parameters']; readonly requestBody?: Operation['requestBody'] }>>;
  readonly components?: { readonly schemas?: Record<string, JsonSchemaNode> };
}

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly parameters?: readonly { readonly in: string; readonly name: string; readonly required?: boolean; readonly schema?: JsonSchemaNode }[];
  readonly requestBody?: { readonly content?: Record<string, { readonly schema?: JsonSchemaNode }> };
}

/** The gateway's operations that start a run (`METHOD /path` as the OpenAPI names them). */
export const RUN_STARTING_OPERATIONS: ReadonlySet<string> = new Set(['POST /problems', 'POST /research', 'POST /paper-searches', 'POST /visual-degrees']);

export interface OpenApiFuzzOptions {
  readonly openapi: OpenApiDocument;
  readonly gatewayUrl: string;
  /** A bearer token of the user the requests are made as. */
  readonly token: string;
  /** Operations that start a run: a request they accept must show its run (`GET /runs/:id`) within `visibleWithinMs`. Default: the gateway's. */
  readonly startsARun?: ReadonlySet<string>;
  readonly requestsPerOperation: number;
  readonly requestsPerStart: number;
  readonly visibleWithinMs: number;
  /** The first operation's fast-check seed (each next operation's is one more): a run is repeatable. */
  readonly seed: number;
}

export interface OpenApiFuzzReport {
  readonly operations: number;
  readonly requests: number;
  /** Answers by status class (`2xx`, `4xx`, ...), for the bench's report. */
  readonly statuses: Readonly<Record<string, number>>;
  readonly runsStarted: number;
  /** One line per broken rule: the request, the answer and what is wrong with it. */
  readonly failures: readonly string[];
  readonly durationMs: number;
}

interface Answer {
  readonly operation: string;
  readonly request: string;
  readonly status: number;
  readonly body: unknown;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** How long one request may take before it counts as no answer. */
const ANSWER_WITHIN_MS = 20_000;

/**
 * Every operation of an OpenAPI document, called with generated and mutated JSON bodies, path
 * parameters and queries (issue 26): no answer may be a 5xx; every 400 names what it refuses; every
 * accepted start of a run shows the run. The CI spec runs it short, the bench long.
 */
export async function fuzzOpenApi(options: OpenApiFuzzOptions): Promise<OpenApiFuzzReport> {
  const started = Date.now();
  const { openapi } = options;
  const resolve = (ref: string): JsonSchemaNode => openapi.components?.schemas?.[ref.replace('#/components/schemas/', '')] ?? {};
  const operations: Operation[] = Object.entries(openapi.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ ...operation, method: method.toUpperCase(), path })));
  const failures: string[] = [];
  const statuses: Record<string, number> = {};
  const accepted: { readonly runId: string; readonly request: string }[] = [];
  let requests = 0;
  for (const operation of operations) {
    const parameters = operation.parameters ?? [];
    const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
    const request = fc.record({
      pathValues: fc.record(
        Object.fromEntries(
          parameters.filter((p) => p.in === 'path').map((p) => [p.name, fc.oneof(fc.uuid(), fc.string({ maxLength: 20 }), p.schema === undefined ? fc.uuid() : arbitraryOf(p.schema, resolve).map(String))]),
        ),
      ),
      query: fc.record(
        Object.fromEntries(parameters.filter((p) => p.in === 'query').map((p) => [p.name, fc.oneof(fc.string({ maxLength: 12 }), p.schema === undefined ? fc.string() : arbitraryOf(p.schema, resolve).map(String))])),
        { requiredKeys: [] },
      ),
      body: bodySchema === undefined ? fc.constant(undefined) : arbitraryOf(bodySchema, resolve),
    });
    const startsARun = (options.startsARun ?? RUN_STARTING_OPERATIONS).has(`${operation.method} ${operation.path}`);
    const samples = fc.sample(request, { numRuns: startsARun ? options.requestsPerStart : options.requestsPerOperation, seed: options.seed + requests });
    for (const sample of samples) {
      requests += 1;
      const answer = await call(options, operation, sample.pathValues, sample.query, sample.body);
      const statusClass = answer.status === 0 ? 'none' : `${Math.floor(answer.status / 100)}xx`;
      statuses[statusClass] = (statuses[statusClass] ?? 0) + 1;
      const problem = problemOf(answer);
      if (problem !== undefined) failures.push(`${answer.request} → ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 300)}: ${problem}`);
      if (startsARun && answer.status >= 200 && answer.status < 300) {
        const body = answer.body as { run_id?: unknown; id?: unknown } | undefined;
        const runId = body?.run_id ?? body?.id;
        if (typeof runId === 'string' && UUID.test(runId)) accepted.push({ runId, request: answer.request });
      }
    }
  }
  // Every accepted start is a run its user can see.
  const deadline = Date.now() + options.visibleWithinMs;
  const unseen = new Set(accepted.map((a) => a.runId));
  while (unseen.size > 0 && Date.now() < deadline) {
    for (const runId of [...unseen]) {
      const response = await fetch(`${options.gatewayUrl}/runs/${runId}`, { headers: { authorization: `Bearer ${options.token}` } });
      await response.body?.cancel();
      if (response.status === 200) unseen.delete(runId);
    }
    if (unseen.size > 0) await new Promise((done) => setTimeout(done, 500));
  }
  for (const { runId, request } of accepted) if (unseen.has(runId)) failures.push(`${request} was accepted, but run ${runId} was not visible within ${options.visibleWithinMs} ms`);
  return { operations: operations.length, requests, statuses, runsStarted: accepted.length, failures, durationMs: Date.now() - started };
}

async function call(options: OpenApiFuzzOptions, operation: Operation, pathValues: Readonly<Record<string, string>>, query: Readonly<Record<string, string | undefined>>, body: unknown): Promise<Answer> {
  const path = operation.path.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(wellFormed(pathValues[name] ?? 'x')));
  const search = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined)).toString();
  const url = `${options.gatewayUrl}${path}${search === '' ? '' : `?${search}`}`;
  const described = `${operation.method} ${path}${search === '' ? '' : `?${search}`} ${JSON.stringify(body)?.slice(0, 300) ?? ''}`;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ANSWER_WITHIN_MS);
  let response: Response;
  try {
    response = await fetch(url, {
      method: operation.method,
      headers: { authorization: `Bearer ${options.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
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

/** A string as UTF-8 can carry it (lone surrogates become U+FFFD), for a URL. */
function wellFormed(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** What is wrong with an answer, if anything. */
function problemOf(answer: Answer): string | undefined {
  if (answer.status === 0) return `no answer within ${ANSWER_WITHIN_MS / 1000} s`;
  if (answer.status >= 500) return 'a 5xx';
  if (answer.status === 400 || answer.status === 422) {
    const body = answer.body as { error?: unknown; issues?: readonly { path?: unknown; message?: unknown }[]; message?: unknown } | undefined;
    if (typeof body?.error !== 'string' || (typeof body.message !== 'string' && body.error !== 'validation_failed')) return 'a 4xx without an error code and a message';
    // A refused field is named by its path; a refused body as a whole says so.
    const issues: readonly { path?: unknown; message?: unknown }[] = Array.isArray(body.issues) ? body.issues : [];
    if (body.error === 'validation_failed' && !(issues.length > 0 && issues.every((issue) => typeof issue.path === 'string' && typeof issue.message === 'string' && issue.message !== ''))) {
      return 'a validation failure that names no field';
    }
    if (body.error === 'malformed_json' && !String(body.message).includes('request body')) return 'a malformed body not named as such';
  }
  return undefined;
}
