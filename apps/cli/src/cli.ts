import { access, readFile, stat } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ApiClient, ApiError, type AssetMetadata, DEFAULT_API_URL, type ProblemSubmission, type RunResource } from './api-client.js';
import { mintDevToken } from './dev-token.js';
import type { CliIo } from './io.js';
import { localBlobPath } from './local-blob-path.js';
import { papers, type PapersOptions } from './papers.js';

/** Exit codes: the run failed or was cancelled (1), bad usage or configuration (2), the API said no or could not be reached (3). */
export const EXIT = { ok: 0, runDidNotSucceed: 1, usage: 2, error: 3 } as const;

/** After this long without the gateway knowing the run, `solve` says so (once). */
const UNKNOWN_RUN_HINT_MS = 10_000;

/** How long `solve` follows a run before giving up (the run goes on; `openpaw status` finds it). */
export const DEFAULT_FOLLOW_TIMEOUT_SECONDS = 900;

export const USAGE = `usage:
  openpaw solve <problem text | image file | http(s) URL> [--intent <name>] [--timeout <seconds>] [--json]
  openpaw papers "<query>" [--no-strategy-checkpoint] [--auto] [--max-iterations <n>] [--sources <a,b>]
                 [--export bibtex|ris|csl-json] [--timeout <seconds>]
  openpaw papers --resume <runId>      decide the checkpoint a paper search waits at
  openpaw library <file.bib | file.ris>   import references into your library (the \`library\` source)
  openpaw status <runId> [--json]
  openpaw cancel <runId> [--reason <text>]

  An existing file is uploaded as an image; an http(s):// argument is a URL; anything else is text
  (quote it, or put it after --, when it starts with a dash).
  \`papers\` shows the strategy (checkpoint 1) and the collection (checkpoint 2) and asks for a decision
  on stdin; q (or the end of input) leaves the search waiting.

environment:
  OPENPAW_API_URL     the gateway (default ${DEFAULT_API_URL})
  OPENPAW_TOKEN       bearer token; without it, OPENPAW_JWT_SECRET mints a local dev token
                      for OPENPAW_USER (default local-user), tier OPENPAW_TIER if set
  OPENPAW_BLOB_DIR    the local blob directory, to print the solution's file path`;

class UsageError extends Error {}

const TERMINAL_EXIT: Readonly<Record<string, number>> = { SUCCEEDED: EXIT.ok, FAILED: EXIT.runDidNotSucceed, CANCELLED: EXIT.runDidNotSucceed };

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.avif': 'image/avif',
  '.heic': 'image/heic',
  '.heif': 'image/heic',
};

interface Options {
  readonly papers: Omit<PapersOptions, 'timeoutSeconds'>;
  readonly intent?: string;
  readonly json: boolean;
  readonly reason?: string;
  readonly timeoutSeconds: number;
}

/** The CLI: parses `argv` (without node and the script), runs the command, returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let command: string | undefined;
  let args: string[];
  let options: Options;
  try {
    ({ command, args, options } = parseCommandLine(argv));
  } catch (error) {
    io.stderr(`${(error as Error).message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (command === undefined || command === 'help') {
    io.stdout(USAGE);
    return command === undefined ? EXIT.usage : EXIT.ok;
  }
  const baseUrl = io.env['OPENPAW_API_URL'] ?? DEFAULT_API_URL;
  try {
    const api = new ApiClient(baseUrl, await tokenOf(io), io);
    switch (command) {
      case 'solve':
        return await solve(api, args, options, io);
      case 'papers':
        return await searchPapers(api, args, options, io);
      case 'library':
        return await importLibrary(api, single(args, 'library <file.bib | file.ris>'), io);
      case 'status':
        return await status(api, single(args, 'status <runId>'), options, io);
      case 'cancel':
        return await cancel(api, single(args, 'cancel <runId>'), options, io);
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`${error.message}\n\n${USAGE}`);
      return EXIT.usage;
    }
    if (error instanceof ApiError) {
      io.stderr(`error: ${error.message}`);
      return EXIT.error;
    }
    const cause = (error as Error & { cause?: { message?: string } }).cause?.message;
    io.stderr(`error: cannot reach the API at ${baseUrl}: ${(error as Error).message}${cause === undefined ? '' : ` (${cause})`}`);
    return EXIT.error;
  }
}

function parseCommandLine(argv: readonly string[]): { command: string | undefined; args: string[]; options: Options } {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      intent: { type: 'string' },
      json: { type: 'boolean', default: false },
      reason: { type: 'string' },
      timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
      'no-strategy-checkpoint': { type: 'boolean', default: false },
      auto: { type: 'boolean', default: false },
      'max-iterations': { type: 'string' },
      sources: { type: 'string' },
      export: { type: 'string' },
      resume: { type: 'string' },
    },
  });
  const maxIterations = values['max-iterations'] === undefined ? undefined : Number(values['max-iterations']);
  if (maxIterations !== undefined && !(Number.isInteger(maxIterations) && maxIterations > 0)) throw new UsageError('--max-iterations must be a positive whole number');
  const exportFormat = values.export;
  if (exportFormat !== undefined && exportFormat !== 'bibtex' && exportFormat !== 'ris' && exportFormat !== 'csl-json') throw new UsageError('--export must be bibtex, ris or csl-json');
  const timeoutSeconds = values.timeout === undefined ? DEFAULT_FOLLOW_TIMEOUT_SECONDS : Number(values.timeout);
  if (!(timeoutSeconds > 0)) throw new UsageError('--timeout must be a positive number of seconds');
  const [command, ...args] = positionals;
  return {
    command: values.help === true ? 'help' : command,
    args,
    options: {
      json: values.json === true,
      timeoutSeconds,
      papers: {
        strategyCheckpoint: values['no-strategy-checkpoint'] !== true,
        autoApprove: values.auto === true,
        ...(maxIterations === undefined ? {} : { maxIterations }),
        ...(values.sources === undefined ? {} : { sources: values.sources.split(',').map((s) => s.trim()).filter((s) => s !== '') }),
        ...(exportFormat === undefined ? {} : { exportFormat }),
        ...(values.resume === undefined ? {} : { resume: values.resume }),
      },
      ...(values.intent === undefined ? {} : { intent: values.intent }),
      ...(values.reason === undefined ? {} : { reason: values.reason }),
    },
  };
}

function single(args: readonly string[], usage: string): string {
  const [only, ...more] = args;
  if (only === undefined || more.length > 0) throw new UsageError(`usage: openpaw ${usage}`);
  return only;
}

async function tokenOf(io: CliIo): Promise<string> {
  const token = io.env['OPENPAW_TOKEN'];
  if (token !== undefined && token !== '') return token;
  if ((io.env['OPENPAW_JWT_SECRET'] ?? '') !== '') {
    try {
      return await mintDevToken(io.env);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  throw new UsageError('no credentials: set OPENPAW_TOKEN, or OPENPAW_JWT_SECRET to mint a local dev token');
}

/** The `POST /problems` request for the arguments: an image upload, a URL, or text. */
export async function submissionRequest(args: readonly string[], intent: string | undefined, cwd: string): Promise<{ init: RequestInit; label: string }> {
  const joined = args.join(' ').trim();
  if (joined === '') throw new UsageError('usage: openpaw solve <problem text | image file | http(s) URL>');
  const json = (body: Record<string, string>): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(intent === undefined ? body : { ...body, intent }),
  });
  if (args.length === 1 && /^https?:\/\//i.test(joined)) return { init: json({ url: joined }), label: `URL ${joined}` };
  if (args.length === 1) {
    const path = resolve(cwd, joined);
    const file = await stat(path).catch(() => undefined);
    if (file?.isFile() === true) {
      const form = new FormData();
      const type = IMAGE_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
      form.set('file', new Blob([await readFile(path)], { type }), basename(path));
      if (intent !== undefined) form.set('intent', intent);
      return { init: { method: 'POST', body: form }, label: `image ${path} (${file.size} bytes)` };
    }
  }
  return { init: json({ text: joined }), label: `text "${joined.length > 60 ? `${joined.slice(0, 57)}...` : joined}"` };
}

async function solve(api: ApiClient, args: readonly string[], options: Options, io: CliIo): Promise<number> {
  const out = options.json ? io.stderr : io.stdout;
  const startedAt = io.now();
  const { init, label } = await submissionRequest(args, options.intent, io.cwd);
  out(`submitting ${label} to ${api.baseUrl}`);
  const { status, body: submitted } = await api.json<ProblemSubmission>('/problems', init);
  const runId = submitted.run_id;
  const note = status === 200 ? ' (answered from an earlier run)' : submitted.attempt_no > 1 ? ` (attempt ${submitted.attempt_no})` : '';
  out(`run ${runId}${note}`);
  const stamp = (): string => `[${((io.now() - startedAt) / 1000).toFixed(1).padStart(5)}s]`;
  const eta = typeof submitted.eta_seconds === 'number' ? `  (eta ~${Math.ceil(submitted.eta_seconds)} s)` : '';

  let final: RunResource | undefined;
  if (submitted.terminal) {
    out(`${stamp()} ${submitted.state}`);
    final = (await api.json<RunResource>(`/runs/${runId}`)).body;
  } else {
    out(`${stamp()} ${submitted.state}${eta}`);
    final = await follow(api, runId, submitted.attempt_no, submitted.state, options.timeoutSeconds * 1000, io, (run) => out(`${stamp()} ${run.state}`));
  }
  if (final === undefined) {
    io.stderr(`still running after ${options.timeoutSeconds} s; see: openpaw status ${runId}`);
    return EXIT.error;
  }
  await printSummary(api, final, io, out);
  if (options.json) io.stdout(JSON.stringify(final, null, 2));
  return TERMINAL_EXIT[final.state] ?? EXIT.runDidNotSucceed;
}

/**
 * Follows the run's server-sent events, reporting each new state, until a terminal state of this
 * attempt. Reconnects (with `Last-Event-ID`) when the stream drops, when the gateway does not know
 * the run yet (404 just after submission), or when it only knows a previous, failed attempt.
 */
async function follow(
  api: ApiClient,
  runId: string,
  attemptNo: number,
  initialState: string,
  timeoutMs: number,
  io: CliIo,
  onState: (run: RunResource) => void,
): Promise<RunResource | undefined> {
  const deadline = io.now() + timeoutMs;
  let lastEventId: string | undefined;
  let shown = `${attemptNo}:${initialState}`;
  let backoffMs = 200;
  let warned = false;
  let unknownSince: number | undefined;
  while (io.now() < deadline) {
    try {
      for await (const event of api.events(`/runs/${runId}/events`, lastEventId, AbortSignal.timeout(Math.max(1, deadline - io.now())))) {
        if (event.event !== undefined && event.event !== 'state') continue;
        if (event.id !== undefined) lastEventId = event.id;
        const run = JSON.parse(event.data) as RunResource;
        // The gateway may still show the previous attempt (its FAILED) until the coordinator reports this one.
        if (run.attemptNo < attemptNo) continue;
        backoffMs = 200;
        const key = `${run.attemptNo}:${run.state}`;
        if (key !== shown) {
          shown = key;
          onState(run);
        }
        if (run.terminal) return run;
      }
      unknownSince = undefined;
    } catch (error) {
      if (error instanceof ApiError && error.status !== 404) throw error;
      if (error instanceof ApiError) {
        // Not reported by the coordinator yet: it may be busy, or down (the run starts when it is back).
        unknownSince ??= io.now();
        if (!warned && io.now() - unknownSince > UNKNOWN_RUN_HINT_MS) {
          warned = true;
          io.stderr(`(the gateway has not heard of run ${runId} yet; is the coordinator running? still waiting)`);
        }
      } else if (!warned && io.now() < deadline) {
        warned = true;
        io.stderr(`(lost the event stream: ${(error as Error).message}; reconnecting)`);
      }
    }
    await io.sleep(backoffMs);
    backoffMs = Math.min(backoffMs * 2, 2000);
  }
  return undefined;
}

function numberIn(view: Record<string, unknown>, key: string): number | undefined {
  const value = view[key];
  return typeof value === 'number' ? value : undefined;
}

async function printSummary(api: ApiClient, run: RunResource, io: CliIo, out: (line: string) => void): Promise<void> {
  const view = run.view;
  const output = (typeof view['output'] === 'object' && view['output'] !== null ? view['output'] : {}) as Record<string, unknown>;
  const outcome = typeof view['outcome'] === 'string' ? ` (outcome: ${view['outcome']})` : '';
  const approximate = output['is_approximate'] === true ? ', approximate: a near-miss solution' : '';
  out('');
  out(`${run.state}${outcome}${approximate}`);
  const cost = numberIn(view, 'cost_usd');
  const duration = numberIn(view, 'duration_ms');
  if (cost !== undefined) out(`cost:      $${cost.toFixed(4)}`);
  if (duration !== undefined) out(`duration:  ${(duration / 1000).toFixed(2)} s`);
  if (typeof view['error_code'] === 'string') out(`error:     ${view['error_code']}`);
  const assetId = typeof output['asset_version_id'] === 'string' ? output['asset_version_id'] : undefined;
  if (assetId === undefined) return;
  out(`solution:  ${api.url(`/runs/${run.runId}/solution`)}`);
  const asset = await assetMetadata(api, assetId, io);
  const path = asset === undefined ? undefined : localBlobPath(io.env, io.cwd, asset.storage_key);
  if (path !== undefined && (await access(path).then(() => true, () => false))) out(`file:      ${path}`);
  if (output['video_pending'] === true) out(`video:     rendering in the background; ${api.url(`/runs/${run.runId}/video`)}`);
}

/** The asset's metadata; the gateway's asset projection may trail the run by a moment. */
async function assetMetadata(api: ApiClient, assetId: string, io: CliIo): Promise<AssetMetadata | undefined> {
  for (let attempt = 0; attempt < 10; attempt += 1) {
    const { status, body } = await api.json<AssetMetadata>(`/assets/${assetId}`, {}, [404]);
    if (status === 200) return body;
    await io.sleep(200);
  }
  return undefined;
}

async function searchPapers(api: ApiClient, args: readonly string[], options: Options, io: CliIo): Promise<number> {
  const query = args.join(' ').trim();
  if (query === '' && options.papers.resume === undefined) throw new UsageError('usage: openpaw papers "<query>"');
  const outcome = await papers(api, query, { ...options.papers, timeoutSeconds: options.timeoutSeconds }, io);
  switch (outcome) {
    case 'completed':
    case 'waiting':
      return EXIT.ok;
    case 'failed':
      return EXIT.runDidNotSucceed;
    case 'timeout':
      io.stderr(`still running after ${options.timeoutSeconds} s`);
      return EXIT.error;
  }
}

async function importLibrary(api: ApiClient, file: string, io: CliIo): Promise<number> {
  const path = resolve(io.cwd, file);
  const extension = extname(path).toLowerCase();
  const format = extension === '.bib' || extension === '.bibtex' ? 'bibtex' : extension === '.ris' ? 'ris' : undefined;
  if (format === undefined) throw new UsageError('openpaw library: a .bib or .ris file');
  const content = await readFile(path, 'utf8');
  const { body } = await api.json<{ status: string; importId: string; added?: number; updated?: number; skipped?: { entry: number; reason: string }[] }>('/library/references', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ format, content }),
  });
  if (body.status !== 'imported') {
    io.stdout(`import ${body.importId} queued (the research service has not answered yet)`);
    return EXIT.ok;
  }
  io.stdout(`imported ${path}: ${body.added ?? 0} added, ${body.updated ?? 0} updated, ${body.skipped?.length ?? 0} skipped`);
  for (const skipped of body.skipped ?? []) io.stdout(`  entry ${skipped.entry}: ${skipped.reason}`);
  return EXIT.ok;
}

async function status(api: ApiClient, runId: string, options: Options, io: CliIo): Promise<number> {
  const out = options.json ? io.stderr : io.stdout;
  const { body: run } = await api.json<RunResource>(`/runs/${encodeURIComponent(runId)}`);
  out(`run ${run.runId}: ${run.state}${run.terminal ? '' : ' (running)'}, attempt ${run.attemptNo}, ${run.workflowType}`);
  if (run.terminal) await printSummary(api, run, io, out);
  if (options.json) io.stdout(JSON.stringify(run, null, 2));
  return run.terminal ? (TERMINAL_EXIT[run.state] ?? EXIT.runDidNotSucceed) : EXIT.ok;
}

async function cancel(api: ApiClient, runId: string, options: Options, io: CliIo): Promise<number> {
  const { status: code, body } = await api.json<{ status?: string; state?: string; reason?: string; detail?: string }>(
    `/runs/${encodeURIComponent(runId)}/cancel`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(options.reason === undefined ? {} : { reason: options.reason }) },
    [409],
  );
  if (code === 409) {
    io.stderr(`cancel refused (${body.reason ?? 'refused'}): ${body.detail ?? ''}`.trimEnd());
    return EXIT.runDidNotSucceed;
  }
  io.stdout(body.status === 'cancelled' ? `cancelled: run ${runId} is ${body.state}` : `cancel requested; run ${runId} is still ${body.state}`);
  return EXIT.ok;
}
