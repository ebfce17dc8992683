import type { Paper } from '@openpaw/contracts';
import { fitPapersToMessage } from './fit-papers-to-message.js';

function paper(n: number, abstractChars: number): Paper {
  return {
    id: `doi:10.1/${n}`,
    title: `Paper ${n}`,
    authors: [{ name: 'A. Author', id: null }],
    year: 2020,
    venue: null,
    abstract: 'a'.repeat(abstractChars),
    doi: `10.1/${n}`,
    arxivId: null,
    pmid: null,
    url: null,
    pdfUrl: null,
    citationCount: null,
    sources: ['openalex'],
    sourceIds: [{ source: 'openalex', id: `W${n}` }],
  };
}

describe('fitPapersToMessage', () => {
  it('leaves a list that fits alone', () => {
    const papers = [paper(1, 100), paper(2, 100)];
    expect(fitPapersToMessage(papers, 10_000)).toEqual({ papers, dropped: 0, cuts: { papersLeftOut: 0, abstractsShortened: 0, authorListsShortened: 0 } });
  });

  it('cuts abstracts first, then drops papers from the end, and never exceeds the budget', () => {
    const papers = Array.from({ length: 50 }, (_, i) => paper(i, 1_500));
    const shortened = fitPapersToMessage(papers, 40_000);
    expect(shortened.dropped).toBe(0);
    expect(shortened.papers.every((p) => p.abstract!.length === 400)).toBe(true);
    expect(shortened.cuts).toEqual({ papersLeftOut: 0, abstractsShortened: 50, authorListsShortened: 0 });
    const dropped = fitPapersToMessage(papers, 10_000);
    expect(dropped.dropped).toBeGreaterThan(0);
    expect(dropped.papers.map((p) => p.id)).toEqual(papers.slice(0, 50 - dropped.dropped).map((p) => p.id));
    expect(Buffer.byteLength(JSON.stringify(dropped.papers))).toBeLessThanOrEqual(10_000);
    // Counted: the papers dropped, and the abstracts shortened of the papers kept.
    expect(dropped.cuts).toEqual({ papersLeftOut: dropped.dropped, abstractsShortened: 50 - dropped.dropped, authorListsShortened: 0 });
  });

  it('leaves abstracts out from the end before it drops any paper, so every paper can still be seen and marked', () => {
    const papers = Array.from({ length: 50 }, (_, i) => paper(i, 1_500));
    // Room for every paper without its abstract (~280 bytes each), not for 50 abstracts of 400 characters.
    const fitted = fitPapersToMessage(papers, 25_000);
    expect(fitted.dropped).toBe(0);
    expect(fitted.papers.map((p) => p.id)).toEqual(papers.map((p) => p.id));
    const withAbstract = fitted.papers.filter((p) => p.abstract !== null).length;
    expect(withAbstract).toBeGreaterThan(0);
    expect(withAbstract).toBeLessThan(50);
    // Best first: the abstracts left out are the last ones.
    expect(fitted.papers.slice(0, withAbstract).every((p) => p.abstract!.length === 400)).toBe(true);
    expect(fitted.papers.slice(withAbstract).every((p) => p.abstract === null)).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(fitted.papers))).toBeLessThanOrEqual(25_000);
    expect(fitted.cuts).toEqual({ papersLeftOut: 0, abstractsShortened: 50, authorListsShortened: 0 });
  });
});
