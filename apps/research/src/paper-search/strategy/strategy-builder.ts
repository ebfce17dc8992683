import type { ParsedIntent, ScholarlySourceName, SearchStrategy, SkillProvenance, UserFeedback } from '@openpaw/contracts';
import type { MarkedPapers } from './marked-paper-terms.js';

/** The iteration model of spec 04: intent + previous strategies + the latest feedback. */
export interface QueryBuilderInput {
  readonly intent: ParsedIntent;
  readonly previousStrategies: readonly SearchStrategy[];
  readonly feedback: UserFeedback | null;
  readonly availableSources: readonly ScholarlySourceName[];
  /** The papers the feedback marks, with title, abstract and keywords (absent from older commands). */
  readonly markedPapers?: MarkedPapers;
}

/** Skill 2: QueryBuilderInput → the next SearchStrategy. */
export interface StrategyBuilder {
  build(input: QueryBuilderInput, options?: { readonly signal?: AbortSignal }): Promise<{ readonly strategy: SearchStrategy; readonly provenance: SkillProvenance }>;
}

/**
 * `("graph neural networks" OR GNN) AND molecules NOT review`: every keyword (OR'ed with its
 * synonyms) AND'ed, each excluded term NOT'ed. This is the query as sent: sources render it in their
 * own syntax (see `search-sources.ts`).
 */
export function booleanQueryOf(keywords: readonly string[], excludedTerms: readonly string[] = [], synonyms: readonly { readonly keyword: string; readonly synonyms: readonly string[] }[] = []): string {
  const quote = (k: string): string => {
    const clean = k.replace(/["()]/g, ' ').replace(/\s+/g, ' ').trim();
    return /\s/.test(clean) || /^(AND|OR|NOT)$/.test(clean) ? `"${clean}"` : clean;
  };
  const group = (k: string): string => {
    const alternatives = [k, ...(synonyms.find((s) => s.keyword === k)?.synonyms ?? [])].map(quote);
    return alternatives.length === 1 ? alternatives[0]! : `(${[...new Set(alternatives)].join(' OR ')})`;
  };
  const positive = keywords.map(group).join(' AND ');
  const negative = excludedTerms.map((t) => ` NOT ${quote(t)}`).join('');
  return `${positive}${negative}`.slice(0, 1_000);
}

/** A canonical form of a strategy's queries, to tell whether two strategies would search the same. */
export function querySignature(strategy: SearchStrategy): string {
  return strategy.queries
    .map((q) => [...q.keywords].map((k) => k.toLowerCase()).sort().join('+'))
    .sort()
    .join('|');
}
