import { describeCuts, describeLocalDrops, describeStoredPapersUnavailable, describeStrategyOrigin, type PublicPaperCollection, type PublicPaperSearchView, type SourceReport } from '@openpaw/contracts';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type ApiClient, ApiError, type RunResource } from './api-client.js';
import { followRun } from './follow.js';
import type { CliIo } from './io.js';

/** `GET /paper-searches/:id` as the CLI reads it. */
export type PaperSearchResource = PublicPaperSearchView & { readonly runId: string; readonly terminal: boolean };

/** An open checkpoint as clients see it (the review with `unmarkablePaperIds`). */
export type Checkpoint = NonNullable<PublicPaperSearchView['checkpoint']>;

export interface PapersOptions {
  readonly strategyCheckpoint: boolean;
  readonly autoApprove: boolean;
  readonly maxIterations?: number;
  readonly sources?: readonly string[];
  readonly exportFormat?: 'bibtex' | 'ris' | 'csl-json';
  readonly resume?: string;
  readonly timeoutSeconds: number;
  /** Start (or name) the search and return at once. */
  readonly noWait?: boolean;
}

export type PapersOutcome = 'completed' | 'failed' | 'cancelled' | 'waiting' | 'timeout';

const PAPERS_SHOWN = 20;

export const CHECKPOINT_HELP = {
  strategy_confirmation: 'a = approve · r <note> = reject, with why · e <file.json> = edit: search this SearchStrategy instead · q = decide later',
  result_review:
    'a [+1,3] = approve (keeping papers 1 and 3 across iterations) · r <note> = reject, with why · e [+1,3] [-2] [text] = iterate: 1 and 3 relevant, 2 never again, text as feedback · q = decide later',
} as const;

/** A paper search as its run's state events carry it: the run's view is the search's view. */
function searchOf(run: RunResource): PaperSearchResource | undefined {
  const view = run.view as Partial<PublicPaperSearchView>;
  if (typeof view.status !== 'string' || typeof view.state !== 'string') return undefined;
  return { ...(view as PublicPaperSearchView), runId: run.runId, terminal: run.terminal };
}

/**
 * `openpaw papers "<query>"`: starts a paper search (or resumes one) and follows its run's events,
 * showing each state; at each checkpoint it shows the strategy or the collection and asks for a
 * decision, until the search completes. Quitting at a checkpoint leaves the search waiting
 * (`--resume <id>` later). Answers the outcome and the search as last seen.
 */
export async function papers(api: ApiClient, query: string, options: PapersOptions, io: CliIo): Promise<{ outcome: PapersOutcome; search?: PaperSearchResource }> {
  const runId = options.resume ?? (await start(api, query, options, io));
  io.stdout(`paper search ${runId}`);
  if (options.noWait === true) return { outcome: 'waiting' };
  let shown = '';
  let outcome: PapersOutcome = 'timeout';
  let last: PaperSearchResource | undefined;
  // Decided (or found stale) here: the gateway's projection may show it a moment longer; never asked twice.
  const decided = new Set<string>();
  await followRun(
    api,
    runId,
    {
      timeoutMs: options.timeoutSeconds * 1000,
      onRun: async (run) => {
        const search = searchOf(run);
        if (search === undefined) return 'continue';
        last = search;
        const key = `${search.state}:${search.iteration}`;
        if (key !== shown) {
          shown = key;
          io.stdout(`  ${search.state}${search.iteration > 0 ? ` (iteration ${search.iteration}/${search.options.maxIterations})` : ''}`);
        }
        if (search.status === 'completed') {
          outcome = await finish(api, search, options, io);
          return 'stop';
        }
        if (search.status === 'failed' || search.status === 'cancelled') {
          io.stderr(`the search ${search.status}${search.error === null ? '' : `: ${search.error.detail}`}`);
          outcome = search.status;
          return 'stop';
        }
        if (search.checkpoint !== null && !decided.has(search.checkpoint.checkpointId)) {
          decided.add(search.checkpoint.checkpointId);
          if (!(await decideCheckpoint(api, search, search.checkpoint, io))) {
            io.stdout(`the search waits at ${search.checkpoint.kind}; decide later with: openpaw papers --resume ${runId}`);
            outcome = 'waiting';
            return 'stop';
          }
        }
        return 'continue';
      },
    },
    io,
  );
  return last === undefined ? { outcome } : { outcome, search: last };
}

async function start(api: ApiClient, query: string, options: PapersOptions, io: CliIo): Promise<string> {
  const body = {
    query,
    options: {
      strategyCheckpoint: options.strategyCheckpoint,
      autoApprove: options.autoApprove,
      ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }),
      ...(options.sources === undefined ? {} : { sources: options.sources }),
    },
  };
  io.stdout(`searching papers for "${query}" at ${api.baseUrl}`);
  const { body: created } = await api.post<{ runId: string }>('/paper-searches', body);
  return created.runId;
}

/** Shows the checkpoint, asks until a decision is accepted (true), or the person quits / input ends (false). */
async function decideCheckpoint(api: ApiClient, search: PaperSearchResource, checkpoint: Checkpoint, io: CliIo): Promise<boolean> {
  const numbered = checkpoint.kind === 'result_review' ? checkpoint.payload.collection.papers.map((p) => p.id) : [];
  const unmarkable = unmarkableOf(checkpoint);
  showCheckpoint(checkpoint, io);
  for (;;) {
    const answer = await io.prompt(`${CHECKPOINT_HELP[checkpoint.kind]}\n> `);
    if (answer === undefined || answer.trim() === 'q') return false;
    let decision: Record<string, unknown>;
    try {
      decision = await decisionOf(answer.trim(), checkpoint.kind, numbered, io.cwd, unmarkable);
    } catch (error) {
      io.stderr(`  ${(error as Error).message}`);
      continue;
    }
    const { status, body } = await api.json<{ state?: string; message?: string }>(
      `/paper-searches/${search.runId}/checkpoints/${checkpoint.checkpointId}/decision`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(decision) },
      [400, 409],
    );
    if (status === 400) {
      io.stderr(`  refused: ${new ApiError(status, body).message}`);
      continue;
    }
    if (status === 409) io.stderr(`  ${body.message ?? 'the checkpoint is no longer open'}`);
    return true;
  }
}

/** The papers of an open review that it cannot keep if marked relevant (the gateway lists them; none at checkpoint 1). */
function unmarkableOf(checkpoint: Checkpoint): ReadonlySet<string> {
  return new Set(checkpoint.kind === 'result_review' ? (checkpoint.payload.unmarkablePaperIds ?? []) : []);
}

/**
 * One answer line as a decision (the gateway's Decision: action, revisedData, note). A paper the
 * review cannot keep (`unmarkable`) is refused as `+n` here, before the gateway would refuse it; `-n` works.
 */
export async function decisionOf(answer: string, kind: Checkpoint['kind'], numbered: readonly string[], cwd: string, unmarkable: ReadonlySet<string> = new Set()): Promise<Record<string, unknown>> {
  const [verb = '', ...rest] = answer.split(/\s+/);
  const text = rest.join(' ').trim();
  const paperIds = (token: string, sign: '+' | '-'): string[] =>
    token
      .slice(1)
      .split(',')
      .filter((n) => n !== '')
      .map((n) => {
        const id = numbered[Number(n) - 1];
        if (!/^\d+$/.test(n) || id === undefined) throw new Error(`${sign}${n}: no paper numbered ${n}`);
        if (sign === '+' && unmarkable.has(id)) throw new Error(`+${n}: this review cannot keep paper ${n} (it is beyond the papers its message carried); mark it -${n}, or search again`);
        return id;
      });
  const marks = (): { relevant: string[]; irrelevant: string[]; words: string[] } => {
    const relevant: string[] = [];
    const irrelevant: string[] = [];
    const words: string[] = [];
    for (const token of rest) {
      if (/^\+[\d,]+$/.test(token)) relevant.push(...paperIds(token, '+'));
      else if (/^-[\d,]+$/.test(token)) irrelevant.push(...paperIds(token, '-'));
      else words.push(token);
    }
    return { relevant, irrelevant, words };
  };
  switch (verb.toLowerCase()) {
    case 'a':
    case 'approve': {
      if (kind === 'strategy_confirmation' || rest.length === 0) return { action: 'approve' };
      return { action: 'approve', revisedData: { markedRelevant: marks().relevant } };
    }
    case 'r':
    case 'reject':
      if (text === '') throw new Error('say why: r <note>');
      return { action: 'reject', note: text };
    case 'e':
    case 'edit': {
      if (kind === 'strategy_confirmation') {
        if (text === '') throw new Error('e <file.json>: a SearchStrategy as JSON');
        const raw = await readFile(resolve(cwd, text), 'utf8');
        return { action: 'edit', revisedData: JSON.parse(raw) as unknown };
      }
      const { relevant, irrelevant, words } = marks();
      return { action: 'edit', revisedData: { markedRelevant: relevant, markedIrrelevant: irrelevant, freeText: words.length === 0 ? null : words.join(' ') } };
    }
    default:
      throw new Error(`"${answer}" is not a decision`);
  }
}

export function showCheckpoint(checkpoint: Checkpoint, io: Pick<CliIo, 'stdout'>): void {
  io.stdout('');
  if (checkpoint.kind === 'strategy_confirmation') {
    const { strategy, diff, origin } = checkpoint.payload;
    io.stdout(`checkpoint 1 of iteration ${checkpoint.iteration}: the search strategy${origin === undefined ? '' : `, ${describeStrategyOrigin(origin)}`}`);
    strategy.queries.forEach((q, i) => io.stdout(`  query ${i + 1}: ${q.booleanQuery}`));
    io.stdout(`  sources: ${strategy.sources.join(', ')}`);
    const { yearFrom, yearTo, language } = strategy.filters;
    io.stdout(`  filters: years ${yearFrom ?? '…'}–${yearTo ?? '…'}${language === null ? '' : `, language ${language}`}`);
    if (strategy.excludedTerms.length > 0) io.stdout(`  excluded: ${strategy.excludedTerms.join(', ')}`);
    if (diff !== null) {
      const changes = [
        ...diff.addedKeywords.map((k) => `+${k}`),
        ...diff.removedKeywords.map((k) => `-${k}`),
        ...diff.addedSources.map((s) => `+source ${s}`),
        ...diff.removedSources.map((s) => `-source ${s}`),
      ];
      io.stdout(`  changed since the last iteration: ${changes.length === 0 ? 'nothing' : changes.join(' ')}`);
    }
  } else {
    const { collection, accumulatedPapers } = checkpoint.payload;
    const unmarkable = unmarkableOf(checkpoint);
    io.stdout(`checkpoint 2 of iteration ${checkpoint.iteration}: ${collection.papers.length} papers`);
    showCollection(collection, io, unmarkable);
    if (unmarkable.size > 0) {
      io.stdout(`  × ${unmarkable.size} of these papers cannot be kept by this review (+n is refused for them; -n works): they are beyond the papers its message carried`);
    }
    if (accumulatedPapers.length > 0) io.stdout(`  kept from earlier iterations: ${accumulatedPapers.map((p) => p.title).join('; ')}`);
  }
}

/** The papers, numbered; at a review, one it cannot keep is marked `×` (not selectable as `+n`). */
function showCollection(collection: PublicPaperCollection, io: Pick<CliIo, 'stdout'>, unmarkable: ReadonlySet<string> = new Set()): void {
  collection.papers.slice(0, PAPERS_SHOWN).forEach((p, i) => {
    const mark = unmarkable.has(p.id) ? ` × cannot be kept here: -${i + 1} only` : '';
    io.stdout(`  ${String(i + 1).padStart(2)}. [${p.relevanceScore.toFixed(2)}] ${p.title} (${p.year ?? 'n.d.'}${p.venue === null ? '' : `, ${p.venue}`})${mark}`);
    if (p.relevanceReason !== '') io.stdout(`      ${p.relevanceReason}`);
  });
  if (collection.papers.length > PAPERS_SHOWN) io.stdout(`  … and ${collection.papers.length - PAPERS_SHOWN} more`);
  for (const report of collection.metadata.sourceReports.filter((r) => r.status === 'failed')) {
    io.stdout(`  source ${report.source} failed: ${report.error?.kind ?? 'error'} (${report.error?.message ?? ''})`);
  }
  for (const line of collection.metadata.sourceReports.flatMap(sourceNotes)) io.stdout(`  ${line}`);
  for (const line of describeStoredPapersUnavailable(collection.storedPapersUnavailable)) io.stdout(`  ${line}`);
  for (const line of describeCuts(collection.metadata.cuts)) io.stdout(`  cut: ${line}`);
  const themes = collection.facets.themes.map((t) => t.name);
  if (themes.length > 0) io.stdout(`  themes: ${themes.join(', ')}`);
}

async function finish(api: ApiClient, search: PaperSearchResource, options: PapersOptions, io: CliIo): Promise<PapersOutcome> {
  const result = search.result;
  io.stdout('');
  io.stdout(`completed (${search.completion ?? 'done'}) after ${search.iterations.length} iteration${search.iterations.length === 1 ? '' : 's'}: ${result?.papers.length ?? 0} papers`);
  if (result !== null) showCollection(result, io);
  if (search.papersTrimmed) io.stdout('  (the papers above are shortened to fit one message: abstracts left out; the export has them whole)');
  if (options.exportFormat !== undefined && result !== null) {
    const response = await api.request(`/paper-searches/${search.runId}/export?format=${options.exportFormat}`);
    if (!response.ok) throw new ApiError(response.status, await response.text());
    io.stdout('');
    io.stdout((await response.text()).trimEnd());
  }
  return 'completed';
}

/** What a source could not search itself, said per source: "arxiv: NOT applied locally", and what that filter dropped. */
export function sourceNotes(report: SourceReport): string[] {
  const drops = describeLocalDrops(report);
  return [
    ...(report.appliedLocally ?? []).map((what) => `${report.source}: ${what} applied locally`),
    ...(drops === null ? [] : [drops]),
    ...(report.notApplied ?? []).map((what) => `${report.source}: not applied: ${what}`),
  ];
}
