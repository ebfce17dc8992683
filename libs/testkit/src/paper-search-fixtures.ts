import type { PaperCollection, ScoredPaper } from '@openpaw/contracts';

/** A scored paper for specs: a library paper from 2020 with no identifiers but its id, unless overridden. */
export function scoredPaperFixture(id: string, overrides: Partial<ScoredPaper> = {}): ScoredPaper {
  return {
    id,
    title: id,
    authors: [],
    year: 2020,
    venue: null,
    abstract: null,
    doi: null,
    arxivId: null,
    pmid: null,
    url: null,
    pdfUrl: null,
    citationCount: null,
    sources: ['library'],
    sourceIds: [],
    relevanceScore: 0.5,
    relevanceReason: 'r',
    tags: [],
    ...overrides,
  };
}

const provenance = { model: 'local', local: true, method: 'lexical', costUsd: 0 };

/** A collection of `papers` for specs: iteration 1 of query "q" on the library, no themes, unless overridden. */
export function paperCollectionFixture(papers: ScoredPaper[], overrides: Partial<PaperCollection> = {}): PaperCollection {
  return {
    papers,
    facets: { byYear: [], byVenue: [], topAuthors: [], themes: [] },
    metadata: {
      query: 'q',
      strategy: { queries: [{ keywords: ['q'], synonyms: [], booleanQuery: 'q' }], sources: ['library'], filters: { yearFrom: null, yearTo: null, language: null, maxResults: 100 }, excludedTerms: [] },
      iteration: 1,
      totalFound: papers.length,
      duplicatesMerged: 0,
      rejectedExcluded: 0,
      sourceReports: [],
      scoredBy: provenance,
      organisedBy: provenance,
      createdAt: '2026-01-01T00:00:00.000Z',
    },
    ...overrides,
  };
}
