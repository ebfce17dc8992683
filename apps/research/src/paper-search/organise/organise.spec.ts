import type { PaperCollection, ScoredPaper, SearchStrategy, SkillProvenance } from '@openpaw/contracts';
import { scriptedLlm } from '../../testing/scripted-llm.js';
import { paperIdOf } from '../papers/paper-id.js';
import { LlmThemer } from './llm-themer.js';
import { LocalThemer } from './local-themer.js';
import { organiseCollection } from './organise-collection.js';

function scored(title: string, score: number, extra: Partial<ScoredPaper> = {}): ScoredPaper {
  const p: ScoredPaper = { id: '', title, authors: [{ name: 'Ada Lovelace', id: null }], year: 2020, venue: 'Nature', abstract: null, doi: null, arxivId: null, pmid: null, url: null, pdfUrl: null, citationCount: null, sources: ['library'], sourceIds: [], relevanceScore: score, relevanceReason: 'r', tags: [], ...extra };
  return { ...p, id: paperIdOf(p) };
}

const strategy: SearchStrategy = { queries: [{ keywords: ['protein'], synonyms: [], booleanQuery: 'protein' }], sources: ['library'], filters: { yearFrom: null, yearTo: null, language: null, maxResults: 3 }, excludedTerms: [] };
const local: SkillProvenance = { model: 'local/x', local: true, method: 'LOCAL', costUsd: 0 };

describe('organising a collection', () => {
  it('groups papers by shared title words that are not search terms', async () => {
    const papers = [scored('Protein structure prediction with deep learning', 0.9), scored('Protein structure from cryo-EM maps', 0.8), scored('Protein design by deep learning', 0.7), scored('Protein folding kinetics', 0.6)];
    const { themes, provenance } = await new LocalThemer().themes({ query: 'protein', strategy, papers });
    // "deep", "learning" and "structure" each appear in two titles; "deep" wins the tie, and the two
    // papers left share no word, so there is one theme.
    expect(themes.map((t) => [t.name, t.paperIds])).toEqual([['deep', [papers[0]!.id, papers[2]!.id]]]);
    expect(themes[0]!.summary).toContain('local term grouping, no LLM');
    expect(provenance.local).toBe(true);
  });

  it('cuts to maxResults best first, counts facets, and keeps themes to the papers kept', () => {
    const papers = [scored('C', 0.2, { year: 2019, venue: 'Cell' }), scored('A', 0.9), scored('B', 0.5, { year: 2021, authors: [{ name: 'Grace Hopper', id: null }] }), scored('D', 0.8, { year: null, venue: null })];
    const themes = [{ name: 't', summary: 's', paperIds: [papers[0]!.id, papers[1]!.id] }, { name: 'gone', summary: 's', paperIds: [papers[0]!.id] }];
    const collection = organiseCollection({
      query: 'q',
      iteration: 2,
      strategy,
      papers,
      totalFound: 9,
      duplicatesMerged: 3,
      rejectedExcluded: 1,
      sourceReports: [{ source: 'library', status: 'ok', count: 4, totalAvailable: 4, durationMs: 3, error: null }],
      scoredBy: local,
      themes,
      organisedBy: local,
      createdAt: '2026-11-23T20:00:00.000Z',
      cuts: { papersLeftOut: 5, abstractsShortened: 2, authorListsShortened: 0 },
    });
    expect(collection.papers.map((p) => p.title)).toEqual(['A', 'D', 'B']);
    expect(collection.facets).toEqual({
      byYear: [{ year: 2021, count: 1 }, { year: 2020, count: 1 }],
      byVenue: [{ venue: 'Nature', count: 2 }],
      topAuthors: ['Ada Lovelace', 'Grace Hopper'],
      themes: [{ name: 't', summary: 's', paperIds: [papers[1]!.id] }],
    });
    // The earlier steps' cuts are reported; maxResults (the strategy's own choice) is not a cut.
    expect(collection.metadata).toMatchObject({ iteration: 2, totalFound: 9, duplicatesMerged: 3, rejectedExcluded: 1, cuts: { papersLeftOut: 5, abstractsShortened: 2, authorListsShortened: 0 } });
  });

  describe('facets count the papers a client is shown', () => {
    // 260 papers of 50 long author names each (about 1.3 MB): one message carries the first ones only.
    const authors = (i: number) => Array.from({ length: 50 }, (_, a) => ({ name: a === 49 ? 'Last Author' : `Author ${i}-${a} ${'of a consortium with a long name '.repeat(2)}`, id: null }));
    const papers = Array.from({ length: 260 }, (_, i) => scored(`Paper ${i}`, 1 - i / 1000, { year: i < 200 ? 2020 : 2010, venue: i < 200 ? 'Nature' : 'Cell', authors: authors(i) }));
    const organise = (wholePapers?: PaperCollection['wholePapers']) =>
      organiseCollection({
        query: 'q',
        iteration: 1,
        strategy: { ...strategy, filters: { ...strategy.filters, maxResults: 500 } },
        papers,
        totalFound: 260,
        duplicatesMerged: 0,
        rejectedExcluded: 0,
        sourceReports: [],
        scoredBy: local,
        themes: [
          { name: 'early', summary: 's', paperIds: [papers[0]!.id] },
          { name: 'late', summary: 's', paperIds: [papers[259]!.id] },
        ],
        organisedBy: local,
        createdAt: '2026-11-23T20:00:00.000Z',
        ...(wholePapers === undefined ? {} : { wholePapers }),
      });

    it('stored whole (claim check, every view reads the stored list): over the whole collection, not the part one message carries', () => {
      const collection = organise({ blobKey: 'paper-search/run/whole.json', count: 260, cuts: { papersLeftOut: 0, abstractsShortened: 0, authorListsShortened: 0 } });
      expect(collection.papers.length).toBeLessThan(200);
      expect(collection.metadata.cuts?.papersLeftOut).toBe(260 - collection.papers.length);
      expect(collection.wholePapers?.count).toBe(260);
      expect(collection.facets.byYear).toEqual([{ year: 2020, count: 200 }, { year: 2010, count: 60 }]);
      expect(collection.facets.byVenue).toEqual([{ venue: 'Nature', count: 200 }, { venue: 'Cell', count: 60 }]);
      expect(collection.facets.topAuthors[0]).toBe('Last Author');
      expect(collection.facets.themes.map((t) => t.name)).toEqual(['early', 'late']);
    });

    it('not stored (no blob store, an older coordinator): over the papers the message carries, the rest counted as left out', () => {
      const collection = organise();
      const shown = collection.papers.length;
      expect(shown).toBeLessThan(200);
      expect(collection.metadata.cuts?.papersLeftOut).toBe(260 - shown);
      expect(collection.wholePapers).toBeUndefined();
      // Before: 200 and 60, counting papers the view never shows.
      expect(collection.facets.byYear).toEqual([{ year: 2020, count: shown }]);
      expect(collection.facets.byVenue).toEqual([{ venue: 'Nature', count: shown }]);
      expect(collection.facets.topAuthors[0]).toBe('Last Author');
      expect(collection.facets.themes.map((t) => t.name)).toEqual(['early']);
    });
  });

  it('asks the LLM for themes over the papers ids only', async () => {
    const papers = [scored('A', 0.9), scored('B', 0.5)];
    const llm = scriptedLlm();
    llm.script.push(() => ({ themes: [{ name: 'Structure', summary: 'About structure.', paper_ids: [papers[0]!.id, papers[0]!.id] }] }));
    const { themes } = await new LlmThemer({ llm, maxTokens: 500 }).themes({ query: 'q', strategy, papers });
    expect(themes).toEqual([{ name: 'Structure', summary: 'About structure.', paperIds: [papers[0]!.id] }]);
    llm.script.push(() => ({ themes: [{ name: 'X', summary: 'x', paper_ids: ['not-a-paper'] }] }));
    await expect(new LlmThemer({ llm, maxTokens: 500 }).themes({ query: 'q', strategy, papers })).rejects.toMatchObject({ name: 'StructuredOutputError' });
  });
});
