import { addCuts, type Paper, type ResultCuts, type ScholarlySourceName, type SearchQuery, type SearchStrategy, type SOURCE_ERROR_KINDS, type SourceReport } from '@openpaw/contracts';
import {
  type Clock,
  excludedTermsOf,
  matchesExpression,
  operatorsOf,
  parseSearchExpression,
  positiveTerms,
  ProviderError,
  type QueryExpressiveness,
  type ScholarlySource,
  type ScholarlyWork,
  type SearchExpression,
  SearchExpressionError,
} from '@openpaw/providers';
import { cutsOfWorks, paperFromWork } from '../papers/paper-from-work.js';

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
 * across sources, all of them (the reply stores them, `PaperSets`); `cuts` counts what the sources'
 * records lost where papers are made (long abstracts, author lists).
 */
export async function searchSources(
  strategy: SearchStrategy,
  sources: ReadonlyMap<ScholarlySourceName, ScholarlySource>,
  options: SourceSearchOptions,
): Promise<{ papers: Paper[]; sourceReports: SourceReport[]; cuts: ResultCuts }> {
  const outcomes = await Promise.all(strategy.sources.map((name) => searchOne(name, sources.get(name), strategy, options)));
  return { papers: interleave(outcomes.map((o) => o.papers)), sourceReports: outcomes.map((o) => o.report), cuts: addCuts(...outcomes.map((o) => o.cuts)) };
}

async function searchOne(
  name: ScholarlySourceName,
  source: ScholarlySource | undefined,
  strategy: SearchStrategy,
  options: SourceSearchOptions,
): Promise<{ papers: Paper[]; report: SourceReport; cuts: ResultCuts }> {
  const started = options.clock.now();
  const expressions = strategy.queries.map((q) => approvedExpression(q, strategy.excludedTerms));
  const local = source === undefined ? { appliedLocally: [], notApplied: [] } : localFilterNotes(name, source.expresses ?? NOTHING_EXPRESSED, expressions, strategy.filters.language);
  // What the local filter removed, so the view can say so (a Crossref record without an abstract is matched on its title alone).
  const dropped = { count: 0, withoutAbstract: 0 };
  const report = (status: 'ok' | 'failed', works: readonly ScholarlyWork[], total: number | null, error: SourceReport['error']): { papers: Paper[]; report: SourceReport; cuts: ResultCuts } => ({
    papers: works.map(paperFromWork),
    report: { source: name, status, count: works.length, totalAvailable: total, durationMs: Math.max(0, options.clock.now() - started), error, ...local, ...(source === undefined ? {} : { droppedLocally: { ...dropped } }) },
    cuts: cutsOfWorks(works),
  });
  if (source === undefined) return report('failed', [], null, { kind: 'not_configured', message: `source ${name} is not configured on this service (the research service's OPENPAW_SCHOLARLY_SOURCES)` });
  const deadline = AbortSignal.timeout(options.deadlineMs);
  const expresses = source.expresses ?? NOTHING_EXPRESSED;
  const works: ScholarlyWork[] = [];
  let total: number | null = null;
  try {
    for (const [index, query] of strategy.queries.entries()) {
      const expression = expressions[index]!;
      const result = await source.search({
        text: positiveTerms(expression).join(' '),
        phrases: query.keywords,
        expression,
        yearFrom: strategy.filters.yearFrom,
        yearTo: strategy.filters.yearTo,
        language: strategy.filters.language,
        limit: options.perSourceLimit,
        signal: deadline,
      });
      for (const work of result.works) {
        if (passesLocally(work, expression, expresses, strategy.filters.language)) works.push(work);
        else {
          dropped.count += 1;
          if (work.abstract === null || work.abstract.trim() === '') dropped.withoutAbstract += 1;
        }
      }
      total = result.totalAvailable === null ? total : (total ?? 0) + result.totalAvailable;
    }
    return report('ok', works, total, null);
  } catch (error) {
    return report('failed', works, total, describeFailure(error, deadline));
  }
}

const NOTHING_EXPRESSED: QueryExpressiveness = { boolean: false, not: false, language: 'none' };

/**
 * What one query of the approved strategy asks: its boolean query as shown at checkpoint 1, plus the
 * strategy's excluded terms it does not already exclude. A boolean query that cannot be read (typed
 * by hand) falls back to its keywords, each OR'ed with its synonyms, AND'ed together.
 */
export function approvedExpression(query: SearchQuery, excludedTerms: readonly string[]): SearchExpression {
  let expression: SearchExpression;
  try {
    expression = parseSearchExpression(query.booleanQuery);
  } catch (error) {
    if (!(error instanceof SearchExpressionError)) throw error;
    const groups = query.keywords.map((keyword): SearchExpression => {
      const synonyms = query.synonyms.find((s) => s.keyword === keyword)?.synonyms ?? [];
      return synonyms.length === 0 ? { kind: 'term', text: keyword } : { kind: 'or', items: [keyword, ...synonyms].map((text) => ({ kind: 'term', text })) };
    });
    expression = groups.length === 1 ? groups[0]! : { kind: 'and', items: groups };
  }
  const already = new Set(excludedTermsOf(expression).map((t) => t.toLowerCase()));
  const missing = excludedTerms.filter((t) => !already.has(t.toLowerCase()));
  if (missing.length === 0) return expression;
  const base = expression.kind === 'and' ? expression.items : [expression];
  return { kind: 'and', items: [...base, ...missing.map((text): SearchExpression => ({ kind: 'not', item: { kind: 'term', text } }))] };
}

/** A work from a source is kept when it satisfies what the source could not express itself (title and abstract). */
function passesLocally(work: ScholarlyWork, expression: SearchExpression, expresses: QueryExpressiveness, language: string | null): boolean {
  const text = `${work.title} ${work.abstract ?? ''}`;
  if (!expresses.boolean && !matchesExpression(expression, text)) return false;
  if (expresses.boolean && !expresses.not && excludedTermsOf(expression).some((t) => matchesExpression({ kind: 'term', text: t }, text))) return false;
  // A record without a language is kept: unknown is not a mismatch.
  return expresses.language !== 'records' || language === null || work.language == null || work.language.toLowerCase() === language;
}

/** The per-source notes of the checkpoint view: "NOT" applied locally, or a language that could not be applied at all. */
function localFilterNotes(
  name: ScholarlySourceName,
  expresses: QueryExpressiveness,
  expressions: readonly SearchExpression[],
  language: string | null,
): { appliedLocally: string[]; notApplied: string[] } {
  const operators = new Set(expressions.flatMap((e) => [...operatorsOf(e)]));
  const appliedLocally: string[] = [];
  const notApplied: string[] = [];
  if (!expresses.boolean) {
    const positive = [...operators].filter((o) => o !== 'NOT');
    appliedLocally.push(positive.length > 0 ? `${positive.join('/')} (the source ranks by the words only)` : 'every term (the source ranks by the words only)');
  }
  if (!expresses.not && operators.has('NOT')) appliedLocally.push('NOT');
  if (language !== null && expresses.language === 'records') appliedLocally.push(`language ${language} (records without a language kept)`);
  if (language !== null && expresses.language === 'none') notApplied.push(`language ${language}: ${name} records carry no language`);
  return { appliedLocally, notApplied };
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
