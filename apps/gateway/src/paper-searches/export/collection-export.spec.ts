import type { PaperCollection, PaperSearchView, ScoredPaper } from '@openpaw/contracts';
import { exportableCollection, exportCollection, TRIMMED_VIEW_NOTE } from './collection-export.js';

function scored(id: string, title: string, doi: string | null): ScoredPaper {
  return {
    id,
    title,
    authors: [{ name: 'Ashish Vaswani', id: null }],
    year: 2017,
    venue: 'NeurIPS',
    abstract: null,
    doi,
    arxivId: null,
    pmid: null,
    url: null,
    pdfUrl: null,
    citationCount: null,
    sources: ['library'],
    sourceIds: [],
    relevanceScore: 0.9,
    relevanceReason: 'r',
    tags: [],
  };
}
const provenance = { model: 'local', local: true, method: 'lexical', costUsd: 0 };
const collection: PaperCollection = {
  papers: [scored('doi:10.1/attention', 'Attention is all you need', '10.1/attention')],
  facets: { byYear: [], byVenue: [], topAuthors: [], themes: [] },
  metadata: {
    query: 'q',
    strategy: { queries: [{ keywords: ['q'], synonyms: [], booleanQuery: 'q' }], sources: ['library'], filters: { yearFrom: null, yearTo: null, language: null, maxResults: 100 }, excludedTerms: [] },
    iteration: 1,
    totalFound: 1,
    duplicatesMerged: 0,
    rejectedExcluded: 0,
    sourceReports: [],
    scoredBy: provenance,
    organisedBy: provenance,
    createdAt: '2026-01-01T00:00:00.000Z',
  },
};
const base: PaperSearchView = {
  status: 'waiting',
  state: 'AWAITING_RESULT_REVIEW',
  query: 'q',
  options: { strategyCheckpoint: true, autoApprove: false, maxIterations: 5, sources: ['library'] },
  iteration: 2,
  checkpoint: null,
  accumulatedPapers: [],
  iterations: [],
  result: null,
  completion: null,
  error: null,
  papersTrimmed: false,
};

describe('exporting a paper search collection', () => {
  it('exports the result once completed, the collection under review (with accumulated papers) at checkpoint 2, and nothing before', () => {
    expect(exportableCollection({ ...base, result: collection })).toBe(collection);
    const kept = scored('doi:10.1/bert', 'BERT', '10.1/bert');
    const review = exportableCollection({
      ...base,
      checkpoint: { kind: 'result_review', checkpointId: '00000000-0000-4000-8000-000000000001', runId: '00000000-0000-4000-8000-000000000002', iteration: 2, createdAt: '2026-01-01T00:00:00.000Z', payload: { collection, accumulatedPapers: [kept], iteration: 2 } },
    });
    expect(review?.papers.map((p) => p.id)).toEqual(['doi:10.1/attention', 'doi:10.1/bert']);
    expect(exportableCollection(base)).toBeUndefined();
  });

  it('writes BibTeX, RIS and CSL-JSON with their media types', () => {
    const bib = exportCollection(collection, 'bibtex');
    expect(bib.contentType).toMatch(/^application\/x-bibtex/);
    expect(bib.body).toContain('@article{vaswani2017attention,');
    expect(bib.body).toContain('title = {{Attention is all you need}}');
    expect(bib.body).toContain('doi = {10.1/attention}');
    const ris = exportCollection(collection, 'ris');
    expect(ris.body).toMatch(/^TY {2}- /m);
    expect(ris.body).toContain('DO  - 10.1/attention');
    const csl = exportCollection(collection, 'csl-json');
    expect(JSON.parse(csl.body)).toEqual([expect.objectContaining({ title: 'Attention is all you need', DOI: '10.1/attention' })]);
  });

  it('says what limits cut: in every format as notes, and in a BibTeX file as @comment lines its readers skip', () => {
    const cut: PaperCollection = { ...collection, metadata: { ...collection.metadata, cuts: { papersLeftOut: 40, abstractsShortened: 1, authorListsShortened: 0 } } };
    const bib = exportCollection(cut, 'bibtex', true);
    expect(bib.notes).toEqual(['40 papers found but left out: one message carries at most 200 papers', '1 abstract shortened (to 1500 characters, or less to fit a message)', TRIMMED_VIEW_NOTE]);
    expect(bib.body.split('\n').slice(0, 3)).toEqual(bib.notes.map((note) => `@comment{OpenPaw export: ${note}}`));
    expect(bib.body).toContain('@article{vaswani2017attention,');
    expect(exportCollection(cut, 'ris').notes).toEqual(bib.notes.slice(0, 2));
    expect(JSON.parse(exportCollection(cut, 'csl-json').body)).toHaveLength(1);
    // Nothing cut: no notes, and the file is as before.
    expect(exportCollection(collection, 'bibtex')).toMatchObject({ notes: [], body: expect.stringMatching(/^@article\{/) });
  });
});
