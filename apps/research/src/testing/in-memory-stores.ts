import { positiveTerms, type SearchExpression } from '@openpaw/providers';
import type { LibraryReference } from '../library/reference.js';
import { paperIdOf } from '../paper-search/papers/paper-id.js';
import { contentWords, stem } from '../paper-search/text/normalise.js';
import type { LibraryHit, LibraryQuery, LibraryStore } from '../ports.js';

/**
 * The library store port in memory: a reference matches when every word of one phrase is in its
 * title or keywords (stemmed), like the PostgreSQL store's tsquery; ranked by matching phrases.
 */
function satisfies(expression: SearchExpression, has: (term: string) => boolean): boolean {
  if (expression.kind === 'term') return has(expression.text);
  if (expression.kind === 'not') return !satisfies(expression.item, has);
  return expression.kind === 'and' ? expression.items.every((i) => satisfies(i, has)) : expression.items.some((i) => satisfies(i, has));
}

export class InMemoryLibraryStore implements LibraryStore {
  readonly references = new Map<string, Map<string, LibraryReference>>();

  upsert(userId: string, references: readonly LibraryReference[]): Promise<{ added: number; updated: number }> {
    const library = this.references.get(userId) ?? new Map<string, LibraryReference>();
    this.references.set(userId, library);
    let added = 0;
    for (const r of references) {
      if (!library.has(paperIdOf(r))) added += 1;
      library.set(paperIdOf(r), r);
    }
    return Promise.resolve({ added, updated: references.length - added });
  }

  isEmpty(userId: string): Promise<boolean> {
    return Promise.resolve((this.references.get(userId)?.size ?? 0) === 0);
  }

  search(userId: string, query: LibraryQuery): Promise<{ hits: LibraryHit[]; total: number }> {
    const expression: SearchExpression = query.expression ?? { kind: 'or', items: query.phrases.map((text) => ({ kind: 'term', text })) };
    const terms = positiveTerms(expression).map((p) => contentWords(p).map(stem));
    const hits = [...(this.references.get(userId)?.entries() ?? [])]
      .map(([referenceId, r]) => {
        const words = new Set(contentWords(`${r.title} ${r.abstract ?? ''} ${r.keywords.join(' ')}`).map(stem));
        const has = (term: string): boolean => {
          const needed = contentWords(term).map(stem);
          return needed.length > 0 && needed.every((w) => words.has(w));
        };
        const rank = satisfies(expression, has) ? Math.max(1, terms.filter((t) => t.length > 0 && t.every((w) => words.has(w))).length) : 0;
        return { ...r, referenceId, rank };
      })
      .filter((h) => h.rank > 0 && (query.yearFrom === null || (h.year ?? 0) >= query.yearFrom) && (query.yearTo === null || (h.year ?? 9999) <= query.yearTo))
      .sort((a, b) => b.rank - a.rank);
    return Promise.resolve({ hits: hits.slice(0, query.limit), total: hits.length });
  }
}
