import { accumulateRelevant, mergeAccumulated, rejectedPaperIds } from './paper-search-accumulation.js';
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

  it('collects every rejected paper id', () => {
    expect(rejectedPaperIds([userFeedback.parse({ markedIrrelevant: ['x', 'y'] }), null, userFeedback.parse({ markedIrrelevant: ['y', 'z'] })])).toEqual(['x', 'y', 'z']);
  });
});
