import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_PAPERS_PER_MESSAGE, paper, type Paper } from '@openpaw/contracts';
import { LocalFsBlobStore } from '@openpaw/providers';
import { PaperSets, paperSetKey } from './paper-sets.js';

const RUN = '6d1f8f64-4a3e-4a4b-9d0f-5c1a2b3c4d5e';

function papers(n: number): Paper[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `doi:10.1/${i}`,
    title: `Paper ${i}`,
    authors: [{ name: `Author ${i}`, id: null }],
    year: 2020,
    venue: null,
    abstract: `Abstract ${i} `.repeat(100),
    doi: `10.1/${i}`,
    arxivId: null,
    pmid: null,
    url: null,
    pdfUrl: null,
    citationCount: i,
    sources: ['openalex'],
    sourceIds: [{ source: 'openalex', id: `W${i}` }],
  }));
}

describe('PaperSets: the claim check of paper lists', () => {
  let dir: string;
  const storeAt = (rootDir: string) => new LocalFsBlobStore({ rootDir, shareSecret: 'secret', shareBaseUrl: 'http://127.0.0.1/v1/shared' });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paper-sets-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('stores a list of any length when asked, and the reference reads it back whole, also after a restart', async () => {
    const many = papers(3 * MAX_PAPERS_PER_MESSAGE);
    const out = await new PaperSets(storeAt(dir)).out(RUN, 'cmd-1', many, true);
    expect(out).toEqual({ papers: [], papersRef: { blobKey: paperSetKey(RUN, 'cmd-1'), count: 600 }, cuts: { papersLeftOut: 0, abstractsShortened: 0, authorListsShortened: 0 } });
    // A new process over the same store (a restart) reads every paper, abstracts whole.
    const read = await new PaperSets(storeAt(dir)).in({ runId: RUN, papers: [], papersRef: out.papersRef }, paper);
    expect(read).toEqual(many);
  });

  it('writes a redelivered command to the same object (the key comes from the command id)', async () => {
    const sets = new PaperSets(storeAt(dir));
    const first = await sets.out(RUN, 'cmd-2', papers(3), true);
    const again = await sets.out(RUN, 'cmd-2', papers(3), true);
    expect(again.papersRef).toEqual(first.papersRef);
    expect((await sets.out(RUN, 'cmd-3', papers(3), true)).papersRef?.blobKey).not.toBe(first.papersRef?.blobKey);
    expect((await storeAt(dir).list({ prefix: `paper-search/${RUN}/` })).items).toHaveLength(2);
  });

  it('sends the list inline, capped and counted, to a sender that did not ask for a reference or when no store is open', async () => {
    for (const [sets, byReference] of [
      [new PaperSets(storeAt(dir)), undefined],
      [new PaperSets(null), true],
    ] as const) {
      const out = await sets.out(RUN, 'cmd-4', papers(250), byReference);
      expect(out.papersRef).toBeUndefined();
      expect(out.papers).toHaveLength(MAX_PAPERS_PER_MESSAGE);
      expect(out.cuts.papersLeftOut).toBe(50);
    }
    expect(await new PaperSets(null).in({ runId: RUN, papers: papers(2) }, paper)).toEqual(papers(2));
  });

  it('refuses a reference it cannot honour: no store, or a count that does not match what is stored', async () => {
    const out = await new PaperSets(storeAt(dir)).out(RUN, 'cmd-5', papers(4), true);
    await expect(new PaperSets(null).in({ runId: RUN, papers: [], papersRef: out.papersRef }, paper)).rejects.toThrow(/no blob store.*OPENPAW_BLOB_DIR/);
    await expect(new PaperSets(storeAt(dir)).in({ runId: RUN, papers: [], papersRef: { blobKey: out.papersRef!.blobKey, count: 5 } }, paper)).rejects.toThrow('holds 4 papers, its reference says 5');
  });
});
