import { MAX_PAPERS_PER_MESSAGE, type Paper, type ScholarlySourceName, type SearchStrategy, type SOURCE_ERROR_KINDS, type SourceReport } from '@openpaw/contracts';
import { type Clock, ProviderError, type ScholarlySource, type ScholarlyWork } from '@openpaw/providers';
import { fitPapersToMessage } from '../papers/fit-papers-to-message.js';
import { paperFromWork } from '../papers/paper-from-work.js';

export interface SourceSearchOptions {
  /** Works asked of a source per query. */
  readonly perSourceLimit: number;
  /** One source's whole search (every query and page) must finish within this. */
  readonly deadlineMs: number;
  readonly clock: Pick<Clock, 'now'>;
}

type SourceErrorKind = (typeof SOURCE_ERROR_KINDS)[number];

/**
 * Skill 3: every source of the strategy in parallel, its queries one after another (each source has
 * its own rate limiter). A source that fails, times out or is not configured is reported with why;
 * it never fails the search, and what it found before failing is kept. Papers are interleaved
 * across sources and capped to what one message carries (count and bytes).
 */
export async function searchSources(
  strategy: SearchStrategy,
  sources: ReadonlyMap<ScholarlySourceName, ScholarlySource>,
  options: SourceSearchOptions,
): Promise<{ papers: Paper[]; sourceReports: SourceReport[] }> {
  const outcomes = await Promise.all(strategy.sources.map((name) => searchOne(name, sources.get(name), strategy, options)));
  return { papers: fitPapersToMessage(interleave(outcomes.map((o) => o.papers)).slice(0, MAX_PAPERS_PER_MESSAGE)).papers, sourceReports: outcomes.map((o) => o.report) };
}

async function searchOne(
  name: ScholarlySourceName,
  source: ScholarlySource | undefined,
  strategy: SearchStrategy,
  options: SourceSearchOptions,
): Promise<{ papers: Paper[]; report: SourceReport }> {
  const started = options.clock.now();
  const report = (status: 'ok' | 'failed', papers: Paper[], total: number | null, error: SourceReport['error']): { papers: Paper[]; report: SourceReport } => ({
    papers,
    report: { source: name, status, count: papers.length, totalAvailable: total, durationMs: Math.max(0, options.clock.now() - started), error },
  });
  if (source === undefined) return report('failed', [], null, { kind: 'not_configured', message: `source ${name} is not configured on this service` });
  const deadline = AbortSignal.timeout(options.deadlineMs);
  const works: ScholarlyWork[] = [];
  let total: number | null = null;
  try {
    for (const query of strategy.queries) {
      const result = await source.search({
        text: query.keywords.join(' '),
        phrases: query.keywords,
        yearFrom: strategy.filters.yearFrom,
        yearTo: strategy.filters.yearTo,
        limit: options.perSourceLimit,
        signal: deadline,
      });
      works.push(...result.works);
      total = result.totalAvailable === null ? total : (total ?? 0) + result.totalAvailable;
    }
    return report('ok', works.map(paperFromWork), total, null);
  } catch (error) {
    return report('failed', works.map(paperFromWork), total, describeFailure(error, deadline));
  }
}

function describeFailure(error: unknown, deadline: AbortSignal): { kind: SourceErrorKind; message: string } {
  if (deadline.aborted) return { kind: 'timeout', message: 'the source did not answer within its deadline' };
  if (error instanceof ProviderError) {
    const kind: SourceErrorKind = error.kind === 'no_credentials' ? 'not_configured' : error.kind === 'not_found' ? 'bad_request' : error.kind;
    return { kind, message: error.message.slice(0, 1_000) };
  }
  // A bug or a database error in a source is still only that source's failure.
  return { kind: 'server_error', message: (error instanceof Error ? error.message : String(error)).slice(0, 1_000) };
}

/** a1 b1 c1 a2 b2 c2 ...: every source keeps its best results when the total is capped. */
function interleave(lists: readonly Paper[][]): Paper[] {
  const out: Paper[] = [];
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let i = 0; i < longest; i++) for (const list of lists) if (i < list.length) out.push(list[i]!);
  return out;
}
