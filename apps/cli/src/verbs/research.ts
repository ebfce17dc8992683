import type { LlmResultView, ResearchView } from '@openpaw/contracts';
import { randomUUID } from 'node:crypto';
import { type ApiClient, ApiError, type RunResource } from '../api-client.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { followRun } from '../follow.js';
import type { CliIo } from '../io.js';
import { UsageError, type Verb } from '../verb.js';

const PROVIDERS = ['openai', 'anthropic', 'gemini', 'local'] as const;
type Provider = (typeof PROVIDERS)[number];

/** What `POST /research` answers (the fields the verb reads). */
interface ResearchStarted {
  readonly id: string;
  readonly status: string;
}

export const GATE_HELP = 'p = proceed with the successful reports · r = retry the failed models · c = cancel the research · q = decide later';
const GATE_ACTIONS: Readonly<Record<string, 'proceed' | 'retry' | 'cancel'>> = { p: 'proceed', proceed: 'proceed', r: 'retry', retry: 'retry', c: 'cancel', cancel: 'cancel' };

type ResearchOutcome = 'completed' | 'failed' | 'refused' | 'cancelled' | 'waiting' | 'timeout';

const EXIT_OF: Readonly<Record<ResearchOutcome, ExitCode>> = {
  completed: EXIT.succeeded,
  failed: EXIT.failed,
  refused: EXIT.failed,
  cancelled: EXIT.cancelled,
  waiting: EXIT.stillRunning,
  timeout: EXIT.stillRunning,
};

/** A research as its run's state events carry it: the run's view is spec 05's research view. */
function researchOf(run: RunResource): ResearchView | undefined {
  const view = run.view as Partial<ResearchView>;
  return typeof view.status === 'string' && Array.isArray(view.llmResults) ? (view as ResearchView) : undefined;
}

/** One leg's line: `openai: completed (12.3 s, $0.0100)`, or its failure with the reason. */
export function describeLeg(leg: LlmResultView): string {
  const detail =
    leg.status === 'completed'
      ? ` (${leg.model ?? leg.provider}${leg.durationMs === null ? '' : `, ${(leg.durationMs / 1000).toFixed(1)} s`}, $${leg.costUsd.toFixed(4)}${leg.truncated ? ', truncated' : ''})`
      : leg.status === 'failed'
        ? ` — ${leg.errorReason ?? 'error'}: ${leg.error ?? ''}${leg.errorReason === 'auth' ? ' (update your key, then retry)' : ''}`
        : '';
  return `  ${leg.provider}: ${leg.status}${leg.round > 1 ? ` (round ${leg.round})` : ''}${detail}`;
}

/** The report as the person reads it: the synthesis, else the one report; the share link or why there is none. */
function showReport(api: ApiClient, research: ResearchView, io: CliIo): void {
  io.stdout('');
  io.stdout(`# ${research.title}`);
  io.stdout('');
  const reports = research.llmResults.filter((leg) => leg.status === 'completed' && leg.result !== null);
  if (research.synthesizedResult !== null) {
    io.stdout(`Synthesis (${research.synthesisModel ?? research.synthesisLlm}):`);
    io.stdout('');
    io.stdout(research.synthesizedResult.trimEnd());
    if (research.synthesisTruncated === true) io.stdout('(The synthesis was cut short: it is not whole.)');
    const cut = reports.filter((leg) => leg.truncated).map((leg) => leg.provider);
    if (cut.length > 0) io.stdout(`(Cut short, not whole: the report by ${cut.join(', ')}.)`);
    io.stdout('');
    io.stdout(`Individual reports: ${reports.map((leg) => leg.provider).join(', ')} (openpaw status ${research.id} --json has them in full)`);
  } else {
    io.stdout('Synthesis not available: one report, no external report.');
    for (const leg of reports) {
      io.stdout('');
      io.stdout(`Report by ${leg.provider}${leg.truncated ? ' (truncated)' : ''}:`);
      io.stdout('');
      io.stdout((leg.result ?? '').trimEnd());
    }
  }
  io.stdout('');
  if (research.shareInfo !== null) io.stdout(`Share link (until ${research.shareInfo.expiresAt}): ${new URL(research.shareInfo.url, `${api.baseUrl}/`).href}`);
  else io.stdout('No share page: a research without a synthesis publishes none (the report is above).');
}

/** The providers whose key was refused: the failed legs with reason `auth`, else (a refused synthesis key) the synthesis provider. */
function rejectedKeys(research: ResearchView): string[] {
  const legs = research.llmResults.filter((leg) => leg.status === 'failed' && leg.errorReason === 'auth').map((leg) => leg.provider);
  return legs.length > 0 || research.errorReason !== 'auth' ? legs : [research.synthesisLlm];
}

/** How to replace each refused key (read from stdin, as `keys set` takes it). */
const keyCommands = (providers: readonly string[]): string => providers.map((provider) => `openpaw keys set ${provider} < ${provider}-key.txt`).join('; ');

/**
 * After a failure: the command that retries it, when the gateway offers a retry (its `ui.actions`,
 * the one rule the console follows too), preceded by the key commands when a key was refused.
 */
async function sayHowToRetry(api: ApiClient, research: ResearchView, io: CliIo): Promise<void> {
  let actions: readonly string[];
  try {
    actions = (await api.json<{ ui: { actions: readonly string[] } }>(`/research/${encodeURIComponent(research.id)}`)).body.ui.actions;
  } catch (error) {
    // The failure stands (exit 1); only the hint is missing, and the user is told why.
    if (!(error instanceof ApiError)) throw error;
    io.stderr(`(could not ask the gateway whether it can be retried: ${error.message})`);
    return;
  }
  if (!actions.includes('retry')) return;
  const retry = `openpaw research --retry ${research.id}`;
  const rejected = rejectedKeys(research);
  io.stderr(rejected.length === 0 ? `retry the failed part: ${retry}` : `update your key (${keyCommands(rejected)}), then retry: ${retry}`);
}

/**
 * `--retry`: asks the gateway to retry a failed research (`POST /research/:id/retry`, the console's
 * Retry button), with the keys stored now. Answers the run version the retry must pass (the failed
 * state's), or `undefined` when the gateway refused (said on stderr).
 */
async function retryResearch(api: ApiClient, id: string, io: CliIo): Promise<number | undefined> {
  const path = encodeURIComponent(id);
  const failed = (await api.json<RunResource>(`/runs/${path}`)).body;
  const { status, body } = await api.post<{ status?: string; reason?: string; message?: string }>(`/research/${path}/retry`, {}, [409]);
  if (status === 409) {
    io.stderr(`retry refused (${body.reason ?? body.status ?? 'conflict'}): ${body.message ?? ''}`.trimEnd());
    return undefined;
  }
  io.stdout(`retrying research ${id}`);
  return failed.version;
}

/** Asks at the human gate until an answer is accepted (true), or the person quits / input ends (false). */
async function decideGate(api: ApiClient, research: ResearchView, io: CliIo): Promise<boolean> {
  const failed = research.partialFailure?.failedProviders ?? [];
  io.stdout('');
  io.stdout(`${failed.join(', ')} failed; ${research.llmResults.filter((l) => l.status === 'completed').map((l) => l.provider).join(', ')} completed.`);
  const rejected = rejectedKeys(research);
  if (rejected.length > 0) io.stdout(`${rejected.join(', ')} rejected the API key: update it (${keyCommands(rejected)}), then answer r to retry.`);
  for (;;) {
    const answer = await io.prompt(`${GATE_HELP}\n> `);
    if (answer === undefined || answer.trim().toLowerCase() === 'q') return false;
    const action = GATE_ACTIONS[answer.trim().toLowerCase()];
    if (action === undefined) {
      io.stderr(`  "${answer.trim()}" is not an answer`);
      continue;
    }
    const { status, body } = await api.post<{ message?: string }>(`/research/${encodeURIComponent(research.id)}/confirm`, { action }, [400, 409]);
    if (status === 400) {
      io.stderr(`  refused: ${new ApiError(status, body).message}`);
      continue;
    }
    if (status === 409) io.stderr(`  ${body.message ?? 'the research no longer waits for an answer'}`);
    return true;
  }
}

export interface ResearchOptions {
  readonly llms?: readonly Provider[];
  readonly synthesisLlm?: Provider;
  readonly resume?: string;
  /** Retry this failed research, then follow it. */
  readonly retry?: string;
  readonly noWait: boolean;
  readonly timeoutMs: number;
}

/**
 * `openpaw research "<prompt>"`: starts a research (or follows one) on its run's event stream, printing
 * each leg's progress as it changes; at the human gate (some legs failed) it asks proceed / retry /
 * cancel on stdin; at the end it prints the report and the share link. Answers the outcome and the
 * research as last seen.
 */
export async function research(api: ApiClient, prompt: string, options: ResearchOptions, io: CliIo): Promise<{ outcome: ResearchOutcome; research?: ResearchView }> {
  let afterVersion: number | undefined;
  if (options.retry !== undefined) {
    afterVersion = await retryResearch(api, options.retry, io);
    if (afterVersion === undefined) return { outcome: 'refused' };
  }
  const id = options.retry ?? options.resume ?? (await startResearch(api, prompt, options, io));
  io.stdout(`research ${id}`);
  if (options.noWait) return { outcome: 'waiting' };
  let outcome: ResearchOutcome = 'timeout';
  let last: ResearchView | undefined;
  const shown = new Map<string, string>();
  let status = '';
  // The gate of a retry round is a new gate: keyed by the retries used.
  const asked = new Set<number>();
  await followRun(
    api,
    id,
    {
      timeoutMs: options.timeoutMs,
      ...(afterVersion === undefined ? {} : { afterVersion }),
      onRun: async (run) => {
        const current = researchOf(run);
        if (current === undefined) return 'continue';
        last = current;
        if (current.status !== status) {
          status = current.status;
          io.stdout(`${current.status}${current.status === 'draft' ? '' : `: ${current.title}`}`);
        }
        for (const leg of current.llmResults) {
          const line = describeLeg(leg);
          if (shown.get(leg.provider) !== line) {
            shown.set(leg.provider, line);
            io.stdout(line);
          }
        }
        if (current.status === 'completed') {
          showReport(api, current, io);
          outcome = 'completed';
          return 'stop';
        }
        if (current.status === 'failed') {
          io.stderr(`the research failed: ${current.error ?? 'no reason given'}`);
          outcome = current.errorKind === 'cancelled' ? 'cancelled' : 'failed';
          if (outcome === 'failed') await sayHowToRetry(api, current, io);
          return 'stop';
        }
        if (current.status === 'awaiting_confirmation' && !asked.has(current.retryCount)) {
          asked.add(current.retryCount);
          if (!(await decideGate(api, current, io))) {
            io.stdout(`the research waits for your answer; decide later with: openpaw research --resume ${id}`);
            outcome = 'waiting';
            return 'stop';
          }
        }
        return 'continue';
      },
    },
    io,
  );
  return last === undefined ? { outcome } : { outcome, research: last };
}

async function startResearch(api: ApiClient, prompt: string, options: ResearchOptions, io: CliIo): Promise<string> {
  const body = {
    prompt,
    ...(options.llms === undefined ? {} : { selectedLlms: options.llms }),
    ...(options.synthesisLlm === undefined ? {} : { synthesisLlm: options.synthesisLlm }),
  };
  io.stdout(`researching "${prompt}" at ${api.baseUrl}`);
  const started = await api.json<ResearchStarted>('/research', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify(body),
  });
  return started.body.id;
}

function providerList(raw: string, option: string): Provider[] {
  const names = raw.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '');
  const unknown = names.filter((n) => !PROVIDERS.includes(n as Provider));
  if (names.length === 0 || unknown.length > 0) throw new UsageError(`${option} takes ${PROVIDERS.join(', ')} (comma-separated)${unknown.length > 0 ? `, not ${unknown.join(', ')}` : ''}`);
  return names as Provider[];
}

/** `openpaw research`: spec 05's research, its legs followed live and its human gate answered on stdin. */
export const researchVerb: Verb = {
  name: 'research',
  summary: 'research a question with several models, answering the partial-failure gate on stdin',
  usage: [
    '"<prompt>" [--llm <openai,anthropic,gemini,local>] [--synthesis <provider>] [--no-wait]',
    '--resume <researchId>   follow a research (and answer its gate)',
    '--retry <researchId>    retry a failed research with the keys stored now, and follow it',
  ],
  options: {
    llm: { type: 'string' },
    synthesis: { type: 'string' },
    resume: { type: 'string' },
    retry: { type: 'string' },
    'no-wait': { type: 'boolean' },
  },
  needsApi: true,
  async run({ args, options, io, api, timeoutMs }) {
    const prompt = args.join(' ').trim();
    const resume = typeof options['resume'] === 'string' ? options['resume'] : undefined;
    const retry = typeof options['retry'] === 'string' ? options['retry'] : undefined;
    if ([prompt !== '', resume !== undefined, retry !== undefined].filter(Boolean).length !== 1) {
      throw new UsageError('usage: openpaw research "<prompt>" [--llm a,b] | --resume <researchId> | --retry <researchId> (one of them)');
    }
    const llm = options['llm'];
    const synthesis = options['synthesis'];
    const llms = typeof llm === 'string' ? providerList(llm, '--llm') : undefined;
    if (llms !== undefined && new Set(llms).size !== llms.length) throw new UsageError('--llm names each provider at most once');
    const synthesisLlm = typeof synthesis === 'string' ? providerList(synthesis, '--synthesis') : undefined;
    if (synthesisLlm !== undefined && synthesisLlm.length !== 1) throw new UsageError('--synthesis takes one provider');
    const researchOptions: ResearchOptions = {
      noWait: options['no-wait'] === true,
      timeoutMs,
      ...(llms === undefined ? {} : { llms }),
      ...(synthesisLlm?.[0] === undefined ? {} : { synthesisLlm: synthesisLlm[0] }),
      ...(resume === undefined ? {} : { resume }),
      ...(retry === undefined ? {} : { retry }),
    };
    const { outcome, research: last } = await research(await api(), prompt, researchOptions, io);
    if (outcome === 'timeout') io.stderr(`still running after ${timeoutMs / 1000} s`);
    return { exitCode: EXIT_OF[outcome], result: last ?? null };
  },
};
