import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PaperCollection, type PaperSearchView, publicPaperSearchView, type ScoredPaper } from '@openpaw/contracts';
import { LocalFsBlobStore } from '@openpaw/providers/blob';
import { paperCollectionFixture, scoredPaperFixture } from '@openpaw/testkit';
import { exportableCollection, exportCollection, TRIMMED_VIEW_NOTE, viewWithWholePapers, wholeCollection } from './collection-export.js';
import { StoredPaperLists } from './stored-paper-lists.js';

function scored(id: string, title: string, doi: string | null): ScoredPaper {
  return scoredPaperFixture(id, { title, authors: [{ name: 'Ashish Vaswani', id: null }], year: 2017, venue: 'NeurIPS', doi, relevanceScore: 0.9 });
}
const collection = paperCollectionFixture([scored('doi:10.1/attention', 'Attention is all you need', '10.1/attention')]);
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

  describe('with the papers stored whole (claim check)', () => {
    let dir: string;
    let blobs: LocalFsBlobStore;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'export-whole-'));
      blobs = new LocalFsBlobStore({ rootDir: dir, shareSecret: 'secret', shareBaseUrl: 'http://127.0.0.1/v1/shared' });
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    const whole = { ...scored('doi:10.1/attention', 'Attention is all you need', '10.1/attention'), abstract: 'The dominant sequence transduction models are based on recurrent networks.' };
    const kept = scored('doi:10.1/bert', 'BERT', '10.1/bert');
    const earlierCuts = { papersLeftOut: 0, abstractsShortened: 0, authorListsShortened: 2 };
    // The view's collection: abstracts left out to fit one message, and the earlier iteration's kept paper appended.
    const trimmedView = (count: number): PaperCollection => ({
      ...collection,
      papers: [...collection.papers, kept],
      metadata: { ...collection.metadata, cuts: { papersLeftOut: 0, abstractsShortened: 1, authorListsShortened: 2 } },
      wholePapers: { blobKey: 'paper-search/run/whole.json', count, cuts: earlierCuts },
    });

    it("exports the stored papers with their abstracts in place of a trimmed view's; only papers the view alone holds are said to be shortened", async () => {
      await blobs.put('paper-search/run/whole.json', JSON.stringify([whole]));
      const source = await wholeCollection(trimmedView(1), true, new StoredPaperLists(blobs));
      expect(source.collection.papers.map((p) => [p.id, p.abstract])).toEqual([
        [whole.id, whole.abstract],
        [kept.id, null],
      ]);
      expect(source.papersTrimmed).toBe(true);
      expect(source.cuts).toEqual(earlierCuts);
      const ris = exportCollection(source.collection, 'ris', source.papersTrimmed, source.cuts);
      expect(ris.body).toContain(`AB  - ${whole.abstract}`);
      expect(ris.notes).toEqual(['2 author lists cut to the first 50 names', TRIMMED_VIEW_NOTE]);
      // Every paper stored whole: nothing comes shortened from the view.
      expect((await wholeCollection({ ...trimmedView(1), papers: collection.papers }, true, new StoredPaperLists(blobs))).papersTrimmed).toBe(false);
    });

    it('falls back to the view when the stored list is gone (past its retention) or does not match its reference, and says which, first, in the export', async () => {
      const gone = await wholeCollection(trimmedView(1), true, new StoredPaperLists(blobs));
      expect(gone).toEqual({ collection: { ...trimmedView(1), storedPapersUnavailable: { reason: 'gone', storedPapers: 1 } }, papersTrimmed: true, cuts: trimmedView(1).metadata.cuts });
      const ris = exportCollection(gone.collection, 'ris', gone.papersTrimmed, gone.cuts);
      expect(ris.notes).toEqual([
        "the search's stored list of 1 paper was deleted after its retention period (the search ended long ago): only the papers its view kept are here; search again for the whole list",
        '1 abstract shortened (to 1500 characters, or less to fit a message)',
        '2 author lists cut to the first 50 names',
        TRIMMED_VIEW_NOTE,
      ]);
      await blobs.put('paper-search/run/whole.json', JSON.stringify([whole]));
      const mismatched = await wholeCollection(trimmedView(2), true, new StoredPaperLists(blobs));
      expect(mismatched.collection.papers[0]!.abstract).toBeNull();
      expect(mismatched.collection.storedPapersUnavailable).toEqual({ reason: 'unreadable', storedPapers: 2 });
    });

    it('serves the view with every stored paper: a collection larger than one message is shown whole, its cuts those of the stored papers', async () => {
      // 300 papers stored; the message (and so the projected view) carried the first 120, abstracts left out.
      const stored = Array.from({ length: 300 }, (_, i) => ({ ...scored(`doi:10.1/p${i}`, `Paper ${i}`, `10.1/p${i}`), abstract: `Abstract ${i}.` }));
      await blobs.put('paper-search/run/large.json', JSON.stringify(stored));
      const message: PaperCollection = {
        ...collection,
        papers: stored.slice(0, 120).map((p) => ({ ...p, abstract: null })),
        metadata: { ...collection.metadata, cuts: { papersLeftOut: 180, abstractsShortened: 120, authorListsShortened: 2 } },
        wholePapers: { blobKey: 'paper-search/run/large.json', count: 300, cuts: earlierCuts },
      };
      const review = { kind: 'result_review' as const, checkpointId: '00000000-0000-4000-8000-000000000001', runId: '00000000-0000-4000-8000-000000000002', iteration: 2, createdAt: '2026-01-01T00:00:00.000Z', payload: { collection: message, accumulatedPapers: [], iteration: 2 } };
      const view = await viewWithWholePapers({ ...base, checkpoint: review, papersTrimmed: true }, new StoredPaperLists(blobs));
      const shown = view.checkpoint?.kind === 'result_review' ? view.checkpoint.payload.collection : undefined;
      expect(shown?.papers).toHaveLength(300);
      expect(shown?.papers[299]).toMatchObject({ id: 'doi:10.1/p299', abstract: 'Abstract 299.' });
      expect(shown?.metadata.cuts).toEqual(earlierCuts);
      expect(view.papersTrimmed).toBe(false);
      // The 180 the message did not carry are shown, and flagged before anyone marks one relevant.
      const flagged = view.checkpoint?.kind === 'result_review' ? (view.checkpoint.payload as { unmarkablePaperIds?: string[] }).unmarkablePaperIds : undefined;
      expect(flagged).toEqual(stored.slice(120).map((p) => p.id));
      const resource = publicPaperSearchView.parse(view);
      expect(resource.checkpoint?.kind === 'result_review' ? resource.checkpoint.payload.unmarkablePaperIds : undefined).toHaveLength(180);
      // A paper kept before is markable even when the message did not carry it.
      const withKept = await viewWithWholePapers({ ...base, checkpoint: { ...review, payload: { ...review.payload, accumulatedPapers: [stored[299]!] } } }, new StoredPaperLists(blobs));
      expect(withKept.checkpoint?.kind === 'result_review' ? (withKept.checkpoint.payload as { unmarkablePaperIds?: string[] }).unmarkablePaperIds : undefined).toHaveLength(179);
      const done = await viewWithWholePapers({ ...base, status: 'completed', state: 'COMPLETED', result: message }, new StoredPaperLists(blobs));
      expect(done.result?.papers).toHaveLength(300);
      // A stored list past its retention: the view's 120 papers, its cuts, and why the 300 are not shown — in the
      // view, in the public view (GET /paper-searches/:id), for the result and for an open review alike.
      const gone = { ...message, wholePapers: { ...message.wholePapers!, blobKey: 'paper-search/run/gone.json' } };
      const expired = await viewWithWholePapers({ ...base, result: gone, papersTrimmed: true }, new StoredPaperLists(blobs));
      expect(expired.result).toEqual({ ...gone, storedPapersUnavailable: { reason: 'gone', storedPapers: 300 } });
      expect(publicPaperSearchView.parse(expired).result?.storedPapersUnavailable).toEqual({ reason: 'gone', storedPapers: 300 });
      const expiredReview = await viewWithWholePapers({ ...base, checkpoint: { ...review, payload: { ...review.payload, collection: gone } } }, new StoredPaperLists(blobs));
      const expiredShown = publicPaperSearchView.parse(expiredReview).checkpoint;
      expect(expiredShown?.kind === 'result_review' ? [expiredShown.payload.collection.papers.length, expiredShown.payload.collection.storedPapersUnavailable, expiredShown.payload.unmarkablePaperIds] : undefined).toEqual([120, { reason: 'gone', storedPapers: 300 }, undefined]);
      // No stored list: the view as it was.

      const plain = { ...base, result: collection };
      expect(await viewWithWholePapers(plain, new StoredPaperLists(blobs))).toEqual(plain);
    });
  });
});
