import type { PaperCollection } from '../messages/paper-search-model.js';
import type { PaperSearchView } from '../messages/paper-search-run.js';
import { RESEARCH_WORKFLOW, type ResearchView } from '../messages/research-flow.js';
import { PAPER_SEARCH, VISUAL_DEGREES } from '../workflow-types.js';
import { publicPaperSearchView, publicResearchView, publicViewOf } from './public-run-view.js';

const RUN = '0b7a3c52-3f4e-4f7e-9a51-6f2d1c0e9b11';
const BLOB_KEY = `paper-search/${RUN}/5d1e7f0a-2b3c-4d5e-8f90-a1b2c3d4e5f6.json`;
const provenance = { model: 'local', local: true, method: 'lexical', costUsd: 0 };

const collection: PaperCollection = {
  papers: [
    {
      id: 'doi:10.1/attention',
      title: 'Attention is all you need',
      authors: [{ name: 'Ashish Vaswani', id: null }],
      year: 2017,
      venue: 'NeurIPS',
      abstract: null,
      doi: '10.1/attention',
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
    },
  ],
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
  wholePapers: { blobKey: BLOB_KEY, count: 1, cuts: { papersLeftOut: 0, abstractsShortened: 0, authorListsShortened: 0 } },
};

const reviewing: PaperSearchView = {
  status: 'waiting',
  state: 'AWAITING_RESULT_REVIEW',
  query: 'q',
  options: { strategyCheckpoint: true, autoApprove: false, maxIterations: 5, sources: ['library'] },
  iteration: 1,
  checkpoint: {
    kind: 'result_review',
    checkpointId: '9c8b7a65-4321-4fed-8cba-0987654321ab',
    runId: RUN,
    iteration: 1,
    createdAt: '2026-01-01T00:00:00.000Z',
    payload: { collection, accumulatedPapers: [], iteration: 1 },
  },
  accumulatedPapers: [],
  iterations: [],
  result: collection,
  completion: null,
  error: null,
  papersTrimmed: false,
};

describe('the public view of a run', () => {
  it('leaves a paper search’s stored-collection references out of the result and the open checkpoint, and nothing else', () => {
    const raw = JSON.parse(JSON.stringify(reviewing)) as Record<string, unknown>;
    const shown = publicViewOf(PAPER_SEARCH, raw);
    expect(JSON.stringify(shown)).not.toContain('blobKey');
    expect(JSON.stringify(shown)).not.toContain(BLOB_KEY);
    const { wholePapers: _ref, ...withoutRef } = collection;
    expect(shown).toEqual({ ...reviewing, result: withoutRef, checkpoint: { ...reviewing.checkpoint, payload: { collection: withoutRef, accumulatedPapers: [], iteration: 1 } } });
    // The projection's view (the export reads the reference from it) is left as it was.
    expect(raw).toEqual(JSON.parse(JSON.stringify(reviewing)));
    // The public schema serves what the filter leaves, whichever it is given.
    expect(publicPaperSearchView.parse(shown)).toEqual(shown);
    expect(publicPaperSearchView.parse(raw)).toEqual(shown);
  });

  it('leaves the research share page’s blob key out, keeping its signed URL', () => {
    const share = { url: '/v1/shared/abc', expiresAt: '2026-01-02T00:00:00.000Z', blobKey: `research/${RUN}/report.html`, contentSha256: 'a'.repeat(64) };
    const view = { id: RUN, status: 'completed', shareInfo: share } as Partial<ResearchView> as Record<string, unknown>;
    const shown = publicViewOf(RESEARCH_WORKFLOW, view);
    expect(shown).toEqual({ id: RUN, status: 'completed', shareInfo: { url: share.url, expiresAt: share.expiresAt, contentSha256: share.contentSha256 } });
    expect(view['shareInfo']).toBe(share);
    expect(publicResearchView.shape.shareInfo.unwrap().shape).not.toHaveProperty('blobKey');
  });

  it('returns a view with nothing internal as it is (no copy), and views of workflows that declare nothing untouched', () => {
    const running = { ...reviewing, checkpoint: null, result: null } as unknown as Record<string, unknown>;
    expect(publicViewOf(PAPER_SEARCH, running)).toBe(running);
    const research = { id: RUN, status: 'processing', shareInfo: null };
    expect(publicViewOf(RESEARCH_WORKFLOW, research)).toBe(research);
    const visual = { status: 'running', blobKey: 'not declared internal by this workflow' };
    expect(publicViewOf(VISUAL_DEGREES, visual)).toBe(visual);
  });
});
