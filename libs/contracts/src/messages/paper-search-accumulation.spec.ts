import { accumulateRelevant, facetsOf, mergeAccumulated, rejectedPaperIds, withPapers } from './paper-search-accumulation.js';
import { type PaperCollection, type ScoredPaper, userFeedback } from './paper-search-model.js';

function scored(id: string): ScoredPaper {
  return { id, title: id, authors: [], year: null, venue: null, abstract: null, doi: null, arxivId: null, pmid: null, url: null, pdfUrl: null, citationCount: null, sources: ['library'], sourceIds: [], relevanceScore: 0.5, relevanceReason: 'r', tags: [] };
}
const provenance = { model: 'local/x', local: true, method: 'LOCAL', costUsd: 0 };
function collection(ids: string[]): PaperCollection {
  return {
    papers: ids.map(scored),
    facets: { byYear: [], byVenue: [], topAuthors: [], themes: [] },
    metadata: {
      query: 'q',
      strategy: { queries: [{ keywords: ['q'], synonyms: [], booleanQuery: 'q' }], sources: ['library'], filters: { yearFrom: null, yearTo: null, language: null, maxResults: 100 }, excludedTerms: [] },
      iteration: 1,
      totalFound: ids.length,
      duplicatesMerged: 0,
      rejectedExcluded: 0,
      sourceReports: [],
      scoredBy: provenance,
      organisedBy: provenance,
      createdAt: '2026-11-23T21:00:00.000Z',
    },
  };
}

describe('accumulating relevant papers across iterations', () => {
  it('keeps papers marked relevant, once, and adds them to the final collection', () => {
    const first = accumulateRelevant([], collection(['a', 'b', 'c']), userFeedback.parse({ markedRelevant: ['a', 'c', 'zz'] }));
    expect(first.map((p) => p.id)).toEqual(['a', 'c']);
    const second = accumulateRelevant(first, collection(['c', 'd']), userFeedback.parse({ markedRelevant: ['c', 'd'] }));
    expect(second.map((p) => p.id)).toEqual(['a', 'c', 'd']);
    expect(accumulateRelevant(second, collection(['e']), null)).toEqual(second);
    expect(mergeAccumulated(collection(['d', 'e']), second).papers.map((p) => p.id)).toEqual(['d', 'e', 'a', 'c']);
    const unchanged = collection(['a']);
    expect(mergeAccumulated(unchanged, [scored('a')])).toBe(unchanged);
  });

  it('counts the kept papers it appends in the facets, and a collection given other papers counts those', () => {
    const dated = (id: string, year: number, venue: string, author: string): ScoredPaper => ({ ...scored(id), year, venue, authors: [{ name: author, id: null }] });
    const last = { ...collection([]), papers: [dated('d', 2024, 'ICLR', 'Ada'), dated('e', 2023, 'ICLR', 'Ada')] };
    const organised = { ...last, facets: { ...facetsOf(last.papers, [{ name: 'T', summary: 's', paperIds: ['d', 'e'] }]) } };
    expect(organised.facets.byYear).toEqual([{ year: 2024, count: 1 }, { year: 2023, count: 1 }]);
    // Before: the kept paper of an earlier iteration was shown in the result but counted nowhere.
    const merged = mergeAccumulated(organised, [dated('a', 2018, 'NeurIPS', 'Bob'), dated('b', 2018, 'NeurIPS', 'Bob'), dated('c', 2018, 'NeurIPS', 'Bob')]);
    expect(merged.facets).toEqual({
      byYear: [{ year: 2024, count: 1 }, { year: 2023, count: 1 }, { year: 2018, count: 3 }],
      byVenue: [{ venue: 'NeurIPS', count: 3 }, { venue: 'ICLR', count: 2 }],
      topAuthors: ['Bob', 'Ada'],
      themes: [{ name: 'T', summary: 's', paperIds: ['d', 'e'] }],
    });
    // A paper left out (rejected at max iterations) leaves the counts and its themes.
    const without = withPapers(organised, organised.papers.filter((p) => p.id !== 'e'));
    expect(without.facets).toEqual({ byYear: [{ year: 2024, count: 1 }], byVenue: [{ venue: 'ICLR', count: 1 }], topAuthors: ['Ada'], themes: [{ name: 'T', summary: 's', paperIds: ['d'] }] });
  });

  it('collects every rejected paper id', () => {
    expect(rejectedPaperIds([userFeedback.parse({ markedIrrelevant: ['x', 'y'] }), null, userFeedback.parse({ markedIrrelevant: ['y', 'z'] })])).toEqual(['x', 'y', 'z']);
  });
});
