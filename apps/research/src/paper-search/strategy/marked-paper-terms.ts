import type { MarkedPaper } from '@openpaw/contracts';
import { contentWords, stem } from '../text/normalise.js';

/** The marked papers a strategy is built from (BuildSearchStrategy.markedPapers). */
export interface MarkedPapers {
  readonly relevant: readonly MarkedPaper[];
  readonly irrelevant: readonly MarkedPaper[];
}

/** Terms added to find more like the relevant papers, and excluded to avoid the irrelevant ones. */
export interface SteeringTerms {
  readonly include: string[];
  readonly exclude: string[];
}

export const MAX_INCLUDED_TERMS = 3;
export const MAX_EXCLUDED_TERMS = 2;

/**
 * Words of scholarly boilerplate: common to abstracts of any field, so never what sets a marked
 * paper apart ("we propose a novel method and show results").
 */
const BOILERPLATE = new Set(
  (
    'propose proposed present presents presented show shows shown result results novel work works problem problems task tasks ' +
    'performance state art existing previous prior well also however while both each other several many much large small ' +
    'high low first second different general specific important significant significantly demonstrate demonstrates experiment experiments ' +
    'experimental evaluate evaluated evaluation compared compare comparison outperform outperforms achieve achieves able provide provides ' +
    'introduce introduces framework model models technique techniques problem setting settings case cases one two three number set ' +
    'given between across among further thus here present current recent paper article study'
  ).split(' '),
);

/**
 * The distinctive terms of the marked papers, by document frequency over their titles and abstracts.
 * A term must name what a paper is about, so it is in the title of one of them at least (abstract
 * words alone are mostly how papers are written). A term is included when it is in at least two
 * relevant papers (or the one, when one is marked), in no irrelevant paper and not already searched;
 * it is excluded when it is in at least half of the irrelevant papers (and at least two, when two or
 * more are marked), in no relevant one and not searched. Best first by the number of papers, then by how many titles hold it, then alphabetically,
 * so the same marks always give the same terms. Each term is shown in its commonest spelling.
 */
export function steeringTerms(marked: MarkedPapers | undefined, searched: readonly string[]): SteeringTerms {
  if (marked === undefined || (marked.relevant.length === 0 && marked.irrelevant.length === 0)) return { include: [], exclude: [] };
  const searchedStems = new Set(searched.flatMap(contentWords).map(stem));
  const relevant = marked.relevant.map(termsOf);
  const irrelevant = marked.irrelevant.map(termsOf);
  const candidates = (papers: readonly PaperTerms[]): Map<string, { papers: number; titles: number }> => {
    const counts = new Map<string, { papers: number; titles: number }>();
    for (const paper of papers) {
      for (const s of paper.stems) {
        const count = counts.get(s) ?? { papers: 0, titles: 0 };
        counts.set(s, { papers: count.papers + 1, titles: count.titles + (paper.titleStems.has(s) ? 1 : 0) });
      }
    }
    return counts;
  };
  const inAny = (papers: readonly PaperTerms[], s: string): boolean => papers.some((p) => p.stems.has(s));
  const spelling = spellings([...relevant, ...irrelevant]);
  const pickBest = (counts: Map<string, { papers: number; titles: number }>, atLeast: number, others: readonly PaperTerms[], limit: number): string[] =>
    [...counts]
      .filter(([s, c]) => c.titles >= 1 && c.papers >= atLeast && !searchedStems.has(s) && !inAny(others, s))
      .sort(([a, x], [b, y]) => y.papers - x.papers || y.titles - x.titles || (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, limit)
      .map(([s]) => spelling(s));
  const include = pickBest(candidates(relevant), Math.min(2, relevant.length), irrelevant, MAX_INCLUDED_TERMS);
  const exclude = pickBest(candidates(irrelevant), Math.max(Math.min(2, irrelevant.length), Math.ceil(irrelevant.length / 2)), relevant, MAX_EXCLUDED_TERMS);
  return { include, exclude };
}

interface PaperTerms {
  readonly stems: ReadonlySet<string>;
  readonly titleStems: ReadonlySet<string>;
  readonly words: readonly string[];
}

function termsOf(p: MarkedPaper): PaperTerms {
  const words = contentWords(`${p.title} ${p.abstract ?? ''}`).filter((w) => w.length >= 4 && !/\d/.test(w) && !BOILERPLATE.has(w));
  return { stems: new Set(words.map(stem)), titleStems: new Set(contentWords(p.title).map(stem)), words };
}

/** A stem's commonest surface word in the marked papers (alphabetical on a tie). */
function spellings(papers: readonly PaperTerms[]): (s: string) => string {
  const counts = new Map<string, Map<string, number>>();
  for (const w of papers.flatMap((p) => p.words)) {
    const byWord = counts.get(stem(w)) ?? new Map<string, number>();
    byWord.set(w, (byWord.get(w) ?? 0) + 1);
    counts.set(stem(w), byWord);
  }
  return (s) => [...(counts.get(s) ?? new Map([[s, 1]]))].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))[0]![0];
}
