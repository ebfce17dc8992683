import fc from 'fast-check';
import { arbitraryOf, bodyArbitraryOf, type JsonSchemaNode } from './openapi-arbitraries.js';

/** The parts of an OpenAPI 3 document the fuzz reads. */
export interface OpenApiDocument {
  readonly paths: Record<string, Record<string, { readonly parameters?: Operation['parameters']; readonly requestBody?: Operation['requestBody'] }>>;
  readonly components?: { readonly schemas?: Record<string, JsonSchemaNode> };
}

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly parameters?: readonly { readonly in: string; readonly name: string; readonly required?: boolean; readonly schema?: JsonSchemaNode }[];
  readonly requestBody?: { readonly content?: Record<string, MediaType> };
}

/** A request body's media type: its schema and documented examples (OpenAPI 3: `examples` by name, or one `example`). */
interface MediaType {
  readonly schema?: JsonSchemaNode;
  readonly examples?: Readonly<Record<string, { readonly value?: unknown }>>;
  readonly example?: unknown;
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
  /**
   * The API's long-poll query parameter (`?wait=<seconds>`: answer when the run ends or the wait is
   * over) and the longest wait the fuzz asks for: a valid wait above it is lowered to it, so a run
   * that never ends (no worker runs in the fuzz) costs seconds, not a minute. Such a request may
   * take that much longer to answer. Default `{ name: 'wait', maxSeconds: 2 }`.
   */
  readonly longPoll?: { readonly name: string; readonly maxSeconds: number };
  /** The first operation's fast-check seed (each next operation's is one more): a run is repeatable. */
  readonly seed: number;
}

export interface OpenApiFuzzReport {
  readonly operations: number;
  readonly requests: number;
  /** Of `requests`, the hostile-text sweep's: one per path parameter, query parameter and string in a documented example, with NUL (and a lone surrogate in bodies). */
  readonly hostileTextRequests: number;
  /** Answers by status class (`2xx`, `4xx`, ...), for the bench's report. */
  readonly statuses: Readonly<Record<string, number>>;
  readonly runsStarted: number;
  /** Per operation that starts a run: how many of its requests were accepted (2xx) and refused (4xx), and the refusals by `status error field`. */
  readonly starts: Readonly<Record<string, StartTally>>;
  /**
   * The mutated bodies whose mutation the schema certainly refuses (`GeneratedBody.broke`): how many
   * were sent, how many were refused by a body validation failure naming the broken field, and the
   * other answers (`status error location`: refused before the body was read, e.g. for a bad path
   * parameter, or as a whole, e.g. malformed JSON).
   */
  readonly brokenFields: { readonly sent: number; readonly named: number; readonly otherwise: Readonly<Record<string, number>> };
  /** One line per broken rule: the request, the answer and what is wrong with it. */
  readonly failures: readonly string[];
  readonly durationMs: number;
}

export interface StartTally {
  accepted: number;
  refused: number;
  readonly refusals: Record<string, number>;
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
const DEFAULT_LONG_POLL = { name: 'wait', maxSeconds: 2 } as const;

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
  const starts: Record<string, StartTally> = {};
  const longPoll = options.longPoll ?? DEFAULT_LONG_POLL;
  let requests = 0;
  let hostileTextRequests = 0;
  const brokenFields = { sent: 0, named: 0, otherwise: {} as Record<string, number> };
  for (const operation of operations) {
    const parameters = operation.parameters ?? [];
    const json = operation.requestBody?.content?.['application/json'];
    const bodySchema = json?.schema;
    const examples = [...Object.values(json?.examples ?? {}).map((example) => example.value), ...(json?.example === undefined ? [] : [json.example])].filter((value) => value !== undefined);
    const request = fc.record({
      pathValues: fc.record(
        Object.fromEntries(
          parameters.filter((p) => p.in === 'path').map((p) => [p.name, fc.oneof(fc.uuid(), fc.string({ maxLength: 20 }), p.schema === undefined ? fc.uuid() : arbitraryOf(p.schema, resolve).map(String))]),
        ),
      ),
      query: fc.record(
        Object.fromEntries(
          parameters
            .filter((p) => p.in === 'query')
            .map((p) => [
              p.name,
              fc
                .oneof({ weight: 1, arbitrary: fc.string({ maxLength: 12 }) }, { weight: 3, arbitrary: p.schema === undefined ? fc.string() : arbitraryOf(p.schema, resolve).map(String) })
                .map((value) => (p.name === longPoll.name ? shortenedWait(value, longPoll.maxSeconds, p.schema?.maximum) : value)),
            ]),
        ),
        { requiredKeys: [] },
      ),
      body: bodySchema === undefined ? fc.constant(undefined) : bodyArbitraryOf(bodySchema, resolve, examples),
    });
    const startsARun = (options.startsARun ?? RUN_STARTING_OPERATIONS).has(`${operation.method} ${operation.path}`);
    const tally: StartTally = { accepted: 0, refused: 0, refusals: {} };
    if (startsARun) starts[`${operation.method} ${operation.path}`] = tally;
    // Every place text goes in, with text PostgreSQL cannot hold: refused by a 4xx that names it, never accepted, never a 5xx.
    for (const probe of hostileTextProbes(operation, examples, resolve)) {
      requests += 1;
      hostileTextRequests += 1;
      const answer = await call(options, operation, probe.pathValues, probe.query, probe.multipart === true ? formOf(probe.body) : probe.body, ANSWER_WITHIN_MS);
      const problem = hostileTextProblemOf(answer, probe.field);
      if (problem !== undefined) failures.push(`${answer.request} → ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 300)}: ${problem}`);
    }
    const samples = fc.sample(request, { numRuns: startsARun ? options.requestsPerStart : options.requestsPerOperation, seed: options.seed + requests });
    for (const sample of samples) {
      requests += 1;
      const waitSeconds = Number(sample.query[longPoll.name]);
      const answerWithinMs = ANSWER_WITHIN_MS + (Number.isFinite(waitSeconds) && waitSeconds > 0 ? waitSeconds * 1000 : 0);
      const answer = await call(options, operation, sample.pathValues, sample.query, sample.body?.value, answerWithinMs);
      const statusClass = answer.status === 0 ? 'none' : `${Math.floor(answer.status / 100)}xx`;
      statuses[statusClass] = (statuses[statusClass] ?? 0) + 1;
      const problem = problemOf(answer);
      if (problem !== undefined) failures.push(`${answer.request} → ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 300)}: ${problem}`);
      const broke = sample.body?.broke;
      if (broke !== undefined) {
        brokenFields.sent += 1;
        const brokenProblem = brokenFieldProblemOf(answer, broke);
        if (brokenProblem !== undefined) failures.push(`${answer.request} → ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 300)}: ${brokenProblem}`);
        else if (namesBrokenField(answer, broke)) brokenFields.named += 1;
        else brokenFields.otherwise[refusalOf(answer)] = (brokenFields.otherwise[refusalOf(answer)] ?? 0) + 1;
      }
      if (startsARun && answer.status >= 200 && answer.status < 300) {
        tally.accepted += 1;
        const runId = runIdOf(answer.body);
        if (runId === undefined) failures.push(`${answer.request} → ${answer.status}: accepted, but the answer names no run id`);
        else accepted.push({ runId, request: answer.request });
      } else if (startsARun && answer.status >= 400 && answer.status < 500) {
        tally.refused += 1;
        const reason = refusalOf(answer);
        tally.refusals[reason] = (tally.refusals[reason] ?? 0) + 1;
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
  return { operations: operations.length, requests, hostileTextRequests, statuses, runsStarted: accepted.length, starts, brokenFields, failures, durationMs: Date.now() - started };
}

async function call(
  options: OpenApiFuzzOptions,
  operation: Operation,
  pathValues: Readonly<Record<string, string>>,
  query: Readonly<Record<string, string | undefined>>,
  body: unknown,
  answerWithinMs: number,
): Promise<Answer> {
  const path = operation.path.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(wellFormed(pathValues[name] ?? 'x')));
  const search = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined)).toString();
  const url = `${options.gatewayUrl}${path}${search === '' ? '' : `?${search}`}`;
  const form = body instanceof FormData;
  const described = `${operation.method} ${path}${search === '' ? '' : `?${search}`} ${form ? `multipart ${JSON.stringify(Object.fromEntries([...body.entries()].map(([name, part]) => [name, typeof part === 'string' ? part : `<file ${part.name}>`])))}` : (JSON.stringify(body)?.slice(0, 300) ?? '')}`;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), answerWithinMs);
  let response: Response;
  try {
    response = await fetch(url, {
      method: operation.method,
      headers: { authorization: `Bearer ${options.token}`, ...(body === undefined || form ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: form ? body : JSON.stringify(body) }),
      signal: controller.signal,
    });
  } catch (error) {
    return { operation: `${operation.method} ${operation.path}`, request: described, status: 0, body: `no answer within ${answerWithinMs / 1000} s: ${String(error)}` };
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

/** The run an accepted start answers with: `run_id` (problems), `runId` (paper searches, visual degrees) or `id` (research). */
function runIdOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { run_id: snake, runId: camel, id } = body as { run_id?: unknown; runId?: unknown; id?: unknown };
  const runId = snake ?? camel ?? id;
  return typeof runId === 'string' && UUID.test(runId) ? runId : undefined;
}

/** A refusal as the bench counts it: status, error code and the first field named (`400 validation_failed text`). */
function refusalOf(answer: Answer): string {
  const body = answer.body as { error?: unknown; issues?: readonly { path?: unknown }[] } | undefined;
  const issues: readonly { path?: unknown }[] = Array.isArray(body?.issues) ? body.issues : [];
  const field = issues[0]?.path;
  const parts = [String(answer.status), typeof body?.error === 'string' ? body.error : undefined, typeof field === 'string' ? field || '(body)' : undefined];
  return parts.filter((part) => part !== undefined).join(' ');
}

/** A wait the API accepts (a number up to its maximum) above `maxSeconds`, lowered to it; any other value (invalid ones included) as it is. */
function shortenedWait(value: string, maxSeconds: number, schemaMaximum: number | undefined): string {
  const seconds = Number(value);
  const valid = value.trim() !== '' && Number.isFinite(seconds) && seconds <= (schemaMaximum ?? Number.POSITIVE_INFINITY);
  return valid && seconds > maxSeconds ? String(maxSeconds) : value;
}

/** One request of the hostile-text sweep: valid but for `field`, which holds text no PostgreSQL text column can store. */
interface HostileTextProbe {
  /** Where the text is, as a 400 names it: the parameter's name, or the body field's dotted path. */
  readonly field: string;
  readonly pathValues: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly body: unknown;
  /** Sent as `multipart/form-data` (the body's fields as parts) instead of JSON. */
  readonly multipart?: boolean;
}

const NUL_TEXT = 'a\u0000b';
/** A lone surrogate survives JSON (`"\ud800"`) but not a URL (it is encoded as U+FFFD): bodies only. */
const LONE_SURROGATE_TEXT = 'a\ud800b';

/**
 * The sweep's requests for one operation: NUL in each path parameter (the others a valid-looking
 * value) and each query parameter, and NUL and a lone surrogate in each string of each documented
 * body example, one at a time (nested fields and list items included).
 */
function hostileTextProbes(operation: Operation, examples: readonly unknown[], resolve: (ref: string) => JsonSchemaNode): HostileTextProbe[] {
  const parameters = operation.parameters ?? [];
  const plainPath = Object.fromEntries(parameters.filter((p) => p.in === 'path').map((p) => [p.name, plainValueOf(p.schema)]));
  // A required query parameter keeps a plain value, so a refusal is about the hostile text, not its absence.
  const plainQuery = Object.fromEntries(parameters.filter((p) => p.in === 'query' && p.required === true).map((p) => [p.name, plainValueOf(p.schema)]));
  const body = examples[0];
  const probes: HostileTextProbe[] = [];
  for (const p of parameters) {
    if (p.in === 'path') probes.push({ field: p.name, pathValues: { ...plainPath, [p.name]: NUL_TEXT }, query: plainQuery, body });
    if (p.in === 'query') probes.push({ field: p.name, pathValues: plainPath, query: { ...plainQuery, [p.name]: NUL_TEXT }, body });
  }
  const held = new Set<string>();
  examples.forEach((example) => {
    for (const { path, replace } of stringsIn(example, [])) {
      held.add(schemaPathOf(path));
      for (const text of [NUL_TEXT, LONE_SURROGATE_TEXT]) probes.push({ field: path.join('.'), pathValues: plainPath, query: plainQuery, body: replace(text) });
    }
  });
  // Strings of the body's schema that no example holds (optional and nested fields): set on the first example.
  const schema = operation.requestBody?.content?.['application/json']?.schema;
  if (schema !== undefined && (body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body)))) {
    for (const path of schemaStringPaths(schema, resolve, [], 0)) {
      if (held.has(schemaPathOf(path))) continue;
      for (const text of [NUL_TEXT, LONE_SURROGATE_TEXT]) probes.push({ field: path.join('.'), pathValues: plainPath, query: plainQuery, body: withValueAt(body ?? {}, path, text) });
    }
  }
  // Text parts of a multipart body (a file part gets a small text file). A lone surrogate cannot be a part (FormData makes it U+FFFD): NUL only.
  const form = operation.requestBody?.content?.['multipart/form-data']?.schema;
  const formSchema = form?.$ref !== undefined ? resolve(form.$ref) : form;
  const parts = Object.entries(formSchema?.properties ?? {});
  const files = Object.fromEntries(parts.filter(([, part]) => part.format === 'binary').map(([name]) => [name, MULTIPART_FILE]));
  for (const [name, part] of parts) {
    if (part.format !== 'binary' && typesOf(part).includes('string')) probes.push({ field: name, pathValues: plainPath, query: plainQuery, body: { ...files, [name]: NUL_TEXT }, multipart: true });
  }
  return probes;
}

/** The file part of a multipart probe: a small text file, so only the hostile text part is wrong. */
const MULTIPART_FILE = { multipartFile: true, name: 'problem.txt', type: 'text/plain', text: 'Solve 2x + 3 = 7' } as const;

/** A body path as its schema sees it: list items by `[]`, not their index. */
function schemaPathOf(path: readonly (string | number)[]): string {
  return path.map((part) => (typeof part === 'number' ? '[]' : part)).join('.');
}

function typesOf(schema: JsonSchemaNode): readonly string[] {
  return schema.type === undefined ? [] : typeof schema.type === 'string' ? [schema.type] : schema.type;
}

/** Paths to every free string of a schema (object properties, first list items, the non-null branch of a union), enums and constants left out. */
function schemaStringPaths(schemaIn: JsonSchemaNode, resolve: (ref: string) => JsonSchemaNode, path: readonly (string | number)[], depth: number): (string | number)[][] {
  const schema = schemaIn.$ref !== undefined ? resolve(schemaIn.$ref) : schemaIn;
  if (depth > 6 || schema.enum !== undefined || schema.const !== undefined) return [];
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].filter((branch) => !typesOf(branch).includes('null') || typesOf(branch).length > 1);
  if (branches.length > 0) {
    const first = branches[0];
    return first === undefined ? [] : schemaStringPaths(first, resolve, path, depth + 1);
  }
  const types = typesOf(schema);
  if (types.includes('string') && path.length > 0 && schema.format !== 'binary') return [[...path]];
  if (types.includes('array') && schema.items !== undefined) return schemaStringPaths(schema.items, resolve, [...path, 0], depth + 1);
  if (schema.properties !== undefined) return Object.entries(schema.properties).flatMap(([name, property]) => schemaStringPaths(property, resolve, [...path, name], depth + 1));
  return [];
}

/** A copy of `value` with `text` at `path`, objects and lists made on the way where the value has none. */
function withValueAt(value: unknown, path: readonly (string | number)[], text: string): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return text;
  if (typeof head === 'number') {
    const items = Array.isArray(value) ? [...(value as unknown[])] : [];
    items[head] = withValueAt(items[head], rest, text);
    return items;
  }
  const record = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  return { ...record, [head]: withValueAt(record[head], rest, text) };
}

/** A parameter's value that its schema accepts where it can tell (an enum's first, a uuid), so only the hostile one is wrong. */
function plainValueOf(schema: JsonSchemaNode | undefined): string {
  if (schema?.enum !== undefined && schema.enum.length > 0) return String(schema.enum[0]);
  return '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f1';
}

/** Every string in a JSON value, with its path and a copy of the value that has other text there. */
function stringsIn(value: unknown, path: readonly (string | number)[]): { readonly path: readonly (string | number)[]; readonly replace: (text: string) => unknown }[] {
  if (typeof value === 'string') return [{ path, replace: (text) => text }];
  if (Array.isArray(value)) {
    const items: readonly unknown[] = value;
    return items.flatMap((item, index) =>
      stringsIn(item, [...path, index]).map((found) => ({ path: found.path, replace: (text: string): unknown => items.map((other, at) => (at === index ? found.replace(text) : other)) })),
    );
  }
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([name, item]) =>
      stringsIn(item, [...path, name]).map((found) => ({ path: found.path, replace: (text: string) => ({ ...value, [name]: found.replace(text) }) })),
    );
  }
  return [];
}

/** What is wrong with the answer to a hostile-text probe: it must be a 4xx (as every 4xx, saying what is wrong), and a validation failure must name the field. */
function hostileTextProblemOf(answer: Answer, field: string): string | undefined {
  if (answer.status >= 200 && answer.status < 300) return `accepted text with NUL or a lone surrogate in ${field}`;
  const problem = problemOf(answer);
  if (problem !== undefined) return `${problem} (hostile text in ${field})`;
  const body = answer.body as { error?: unknown; issues?: readonly { path?: unknown }[] } | undefined;
  if (body?.error === 'validation_failed' && !(body.issues ?? []).some((issue) => issue.path === field)) return `a validation failure that does not name ${field}, which holds the hostile text`;
  return undefined;
}

interface ValidationFailure {
  readonly error?: unknown;
  readonly location?: unknown;
  readonly issues?: readonly { readonly path?: unknown }[];
}

/** A body validation failure that names `field` (`''`: the body as a whole). */
function namesBrokenField(answer: Answer, field: string): boolean {
  const body = answer.body as ValidationFailure | undefined;
  return answer.status === 400 && body?.error === 'validation_failed' && body.location === 'body' && (body.issues ?? []).some((issue) => issue.path === field);
}

/**
 * What is wrong with the answer to a body whose `field` the schema certainly refuses: accepting it,
 * or a body validation failure that names other fields but not that one. A refusal before the body
 * is read (a bad path parameter or query) or of the body as a whole (malformed JSON) is not about
 * the field, and passes.
 */
function brokenFieldProblemOf(answer: Answer, field: string): string | undefined {
  const named = field === '' ? 'the body as a whole' : field;
  if (answer.status >= 200 && answer.status < 300) return `accepted a body whose ${named} its schema refuses`;
  const body = answer.body as ValidationFailure | undefined;
  if (body?.error === 'validation_failed' && body.location === 'body' && !namesBrokenField(answer, field)) return `a body validation failure that does not name ${named}, which the mutation broke`;
  return undefined;
}

/** A multipart body of a probe's fields: text parts, and a file part for `MULTIPART_FILE`. */
function formOf(fields: unknown): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields as Record<string, unknown>)) {
    if (typeof value === 'string') form.append(name, value);
    else if (value === MULTIPART_FILE) form.append(name, new Blob([MULTIPART_FILE.text], { type: MULTIPART_FILE.type }), MULTIPART_FILE.name);
  }
  return form;
}

/** A string as UTF-8 can carry it (lone surrogates become U+FFFD), for a URL. */
function wellFormed(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** What is wrong with an answer, if anything. */
function problemOf(answer: Answer): string | undefined {
  if (answer.status === 0) return 'no answer';
  if (answer.status >= 500) return 'a 5xx';
  if (answer.status >= 400 && answer.status < 500) {
    // Every refusal names its problem: a code, and a message or the fields it refuses.
    const body = answer.body as { error?: unknown; issues?: readonly { path?: unknown; message?: unknown }[]; message?: unknown } | undefined;
    if (typeof body?.error !== 'string' || body.error === '') return 'a 4xx without an error code';
    if (body.error === 'validation_failed') {
      // A refused field is named by its path; a refused body as a whole by the empty path.
      const issues: readonly { path?: unknown; message?: unknown }[] = Array.isArray(body.issues) ? body.issues : [];
      if (!(issues.length > 0 && issues.every((issue) => typeof issue.path === 'string' && typeof issue.message === 'string' && issue.message !== ''))) return 'a validation failure that names no field';
    } else if (typeof body.message !== 'string' || body.message.trim() === '') {
      return 'a 4xx without a message saying what is wrong';
    }
    if (body.error === 'malformed_json' && !String(body.message).includes('request body')) return 'a malformed body not named as such';
  }
  return undefined;
}
