import type { Paper, PaperIdentity, ScholarlySourceName } from '@openpaw/contracts';
import { isArxivDoi, paperIdOf } from '../papers/paper-id.js';
import { normaliseTitle } from '../text/normalise.js';
import { levenshteinSimilarity } from '../text/similarity.js';

export const FUZZY_TITLE_THRESHOLD = 0.95;
export const FUZZY_TITLE_SAME_YEAR_THRESHOLD = 0.85;

export interface DedupResult {
  readonly papers: Paper[];
  /** Input papers folded into another. */
  readonly duplicatesMerged: number;
  /**
   * The alias table's answer for each output paper that matched papers of earlier iterations: every
   * earlier id of the work (the first of which the paper keeps as its id).
   */
  readonly earlierIds: ReadonlyMap<string, readonly string[]>;
}

/**
 * Dedup in the order: normalised DOI → arXiv id / PMID → exact normalised title → fuzzy title
 * (≥ 0.95, or ≥ 0.85 when both have the same year, and never across different part, volume, edition,
 * erratum or number markers: "Part I" is not "Part II") → one record merged field by field (see
 * `mergePapers`), keeping every source's ids.
 * Identifiers come normalised from the adapters (case, resolver prefix, arXiv version). Titles never
 * join two papers whose identifiers disagree (two different publisher DOIs, or arXiv ids). Output
 * keeps the order of each group's first paper.
 *
 * `known` is the alias table: papers of earlier iterations, in the order their ids were first
 * assigned. They take part in the matching (by the same rules) but are not output; a group that
 * holds one keeps the earliest one's id, so a paper's id never changes between iterations, even when
 * a later merge gives it a stronger identifier (an arXiv preprint later matched to its DOI).
 */
export function deduplicate(found: readonly Paper[], known: readonly PaperIdentity[] = []): DedupResult {
  const papers = [...known.map(asKnownRecord), ...found];
  const groups = new UnionFind(papers.length);
  joinOnKey(papers, groups, (p) => (p.doi !== null && !isArxivDoi(p.doi) ? p.doi : null));
  joinOnKey(papers, groups, (p) => p.arxivId);
  joinOnKey(papers, groups, (p) => p.pmid);
  joinOnKey(papers, groups, (p) => (p.doi !== null && isArxivDoi(p.doi) ? p.doi : null));

  const titles = papers.map((p) => normaliseTitle(p.title));
  joinByTitle(papers, groups, (i, j) => titles[i] === titles[j] && titles[i] !== '', known.length);
  const markers = papers.map((p) => distinguishingMarkers(p.title));
  const surnames = papers.map((p) => firstAuthorSurname(p));
  const sameAuthor = (i: number, j: number): boolean => surnames[i] === null || surnames[j] === null || surnames[i] === surnames[j];
  joinByTitle(papers, groups, (i, j) => {
    if (markers[i] !== markers[j] || !sameAuthor(i, j)) return false;
    const sameYear = papers[i]!.year !== null && papers[i]!.year === papers[j]!.year;
    const threshold = sameYear ? FUZZY_TITLE_SAME_YEAR_THRESHOLD : FUZZY_TITLE_THRESHOLD;
    return levenshteinSimilarity(titles[i]!, titles[j]!, threshold) >= threshold && wordsDifferOnlyBySpelling(titles[i]!, titles[j]!);
  }, known.length);
  // A record without the subtitle ("Title" vs "Title: a subtitle"): the main titles match, and so do
  // the first author and the year (within one, for a preprint), since a bare main title is short.
  const mains = papers.map((p) => normaliseTitle(p.title.split(/\s*(?::|\s[-–—]\s)\s*/)[0] ?? p.title));
  joinByTitle(papers, groups, (i, j) => {
    if (mains[i]!.split(' ').length < 4 || markers[i] !== markers[j] || surnames[i] === null || surnames[i] !== surnames[j]) return false;
    const [yearI, yearJ] = [papers[i]!.year, papers[j]!.year];
    if (yearI === null || yearJ === null || Math.abs(yearI - yearJ) > 1) return false;
    return (titles[i] === mains[j] && mains[i] === mains[j]) || (titles[j] === mains[i] && mains[i] === mains[j]);
  }, known.length);

  // Groups in the order of their first found paper; a group of known papers alone is not output.
  const byRoot = new Map<number, { found: Paper[]; knownIds: string[] }>();
  for (let i = known.length; i < papers.length; i++) {
    const root = groups.find(i);
    const group = byRoot.get(root);
    if (group === undefined) byRoot.set(root, { found: [papers[i]!], knownIds: groups.members(i).filter((m) => m < known.length).sort((a, b) => a - b).map((m) => known[m]!.id) });
    else group.found.push(papers[i]!);
  }
  const earlierIds = new Map<string, string[]>();
  const merged = [...byRoot.values()].map(({ found: group, knownIds }) => {
    const paper = mergePapers(group);
    const firstId = knownIds[0];
    if (firstId === undefined) return paper;
    earlierIds.set(firstId, [...new Set(knownIds)]);
    return paper.id === firstId ? paper : { ...paper, id: firstId };
  });
  return { papers: merged, duplicatesMerged: found.length - merged.length, earlierIds };
}

/** A known paper as a record dedup can match (never output: only its identity is used). */
function asKnownRecord(k: PaperIdentity): Paper {
  return {
    id: k.id,
    title: k.title,
    authors: k.firstAuthor === null ? [] : [{ name: k.firstAuthor, id: null }],
    year: k.year,
    venue: null,
    abstract: null,
    doi: k.doi,
    arxivId: k.arxivId,
    pmid: k.pmid,
    url: null,
    pdfUrl: null,
    citationCount: null,
    sources: ['library'],
    sourceIds: [],
  };
}

function joinOnKey(papers: readonly Paper[], groups: UnionFind, key: (p: Paper) => string | null): void {
  const first = new Map<string, number>();
  papers.forEach((p, i) => {
    const k = key(p);
    if (k === null) return;
    const seen = first.get(k);
    if (seen === undefined) first.set(k, i);
    else groups.union(seen, i);
  });
}

/**
 * Title joins, one pair at a time, refused when the two groups' identifiers conflict. The first
 * `known` papers (earlier iterations', already told apart) are not compared with each other.
 */
function joinByTitle(papers: readonly Paper[], groups: UnionFind, same: (i: number, j: number) => boolean, known: number): void {
  for (let i = 0; i < papers.length; i++) {
    for (let j = Math.max(i + 1, known); j < papers.length; j++) {
      if (groups.find(i) === groups.find(j) || !same(i, j)) continue;
      if (conflicting(groups.members(i).map((m) => papers[m]!), groups.members(j).map((m) => papers[m]!))) continue;
      groups.union(i, j);
    }
  }
}

function conflicting(a: readonly Paper[], b: readonly Paper[]): boolean {
  const differ = (key: (p: Paper) => string | null): boolean => {
    const left = new Set(a.map(key).filter((k) => k !== null));
    const right = new Set(b.map(key).filter((k) => k !== null));
    return left.size > 0 && right.size > 0 && ![...left].some((k) => right.has(k));
  };
  return differ((p) => (p.doi !== null && !isArxivDoi(p.doi) ? p.doi : null)) || differ((p) => p.arxivId) || differ((p) => p.pmid);
}

const ROMAN = '(?:[ivxlc]+)';
const ORDINAL = '(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\\d+(?:st|nd|rd|th))';
const COUNT = `(?:\\d+|${ROMAN}|one|two|three|four|five|six|seven|eight|nine|ten|[a-h])`;
const MARKERS = [
  new RegExp(`\\b(part|vol(?:ume)?|no|number|book|chapter|section|series|issue|supplement)\\.?\\s+(${COUNT})\\b`, 'g'),
  new RegExp(`\\b(${ORDINAL})\\s+(edition|ed|revision)\\b`, 'g'),
  /\b(erratum|errata|corrigendum|correction|retraction|retracted|addendum|reply|response|comment|comments|rejoinder|discussion)\b/g,
];

/**
 * What tells two otherwise similar titles apart as different works: part, volume, edition, erratum
 * and reply markers, and every number in the title ("GPT-3" vs "GPT-4", "2019" vs "2020" surveys).
 * Two titles fuzzy-match only when these are the same.
 */
export function distinguishingMarkers(title: string): string {
  const text = title.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
  const found = MARKERS.flatMap((pattern) => [...text.matchAll(pattern)].map((m) => m.slice(1).join(' ')));
  const numbers = text.match(/\d+/g) ?? [];
  return [...found, ...numbers].sort().join('|');
}

/**
 * Whether two similar titles differ only in how words are spelled (a typo, British/American, a
 * hyphen): every word of one missing from the other has a near-identical word there. "image
 * segmentation" vs "speech recognition" is another paper, however close the rest of the title.
 */
function wordsDifferOnlyBySpelling(a: string, b: string): boolean {
  const left = new Set(a.split(' '));
  const right = new Set(b.split(' '));
  // Short function words ("for" vs "in") do not make another paper.
  const onlyLeft = [...left].filter((w) => !right.has(w) && w.length > 3);
  const onlyRight = [...right].filter((w) => !left.has(w) && w.length > 3);
  const spelledAlike = (words: readonly string[], others: readonly string[], joined: string): boolean =>
    words.every((w) => joined.includes(w) || others.some((o) => levenshteinSimilarity(w, o, 0.7) >= 0.7));
  return spelledAlike(onlyLeft, onlyRight, b.replace(/ /g, '')) && spelledAlike(onlyRight, onlyLeft, a.replace(/ /g, ''));
}

/** The first author's family name, folded (the last word of the name: "T. N. Kipf" and "Thomas Kipf" → "kipf"). */
function firstAuthorSurname(p: Paper): string | null {
  const name = p.authors[0]?.name;
  if (name === undefined) return null;
  const folded = normaliseTitle(name.includes(',') ? name.split(',')[0]! : name).split(' ');
  return folded.at(-1) ?? null;
}

/** Bibliographic metadata is trusted in this order; the first source listed wins a tie. */
const SOURCE_PRIORITY: readonly ScholarlySourceName[] = ['crossref', 'openalex', 'semantic_scholar', 'library', 'arxiv', 'serpapi_scholar'];

/** One paper from a group: the best source's metadata, completed by the others, every id kept. */
export function mergePapers(group: readonly Paper[]): Paper {
  const first = group[0];
  if (first === undefined) throw new Error('mergePapers needs at least one paper');
  if (group.length === 1) return first;
  // The most complete record leads (a full record beats a stub with abbreviated authors and no abstract); source trust breaks ties.
  const ranked = [...group].sort((x, y) => completeness(y) - completeness(x) || rank(x) - rank(y));
  const best = ranked[0]!;
  const pick = <T>(value: (p: Paper) => T | null): T | null => ranked.map(value).find((v) => v !== null) ?? null;
  const publisherDoi = pick((p) => (p.doi !== null && !isArxivDoi(p.doi) ? p.doi : null));
  const doi = publisherDoi ?? pick((p) => p.doi);
  const arxivId = pick((p) => p.arxivId);
  const pmid = pick((p) => p.pmid);
  const longest = <T>(values: readonly T[], size: (v: T) => number): T | undefined => values.reduce<T | undefined>((acc, v) => (acc === undefined || size(v) > size(acc) ? v : acc), undefined);
  const abstracts = group.map((p) => p.abstract).filter((a) => a !== null);
  const citations = group.map((p) => p.citationCount).filter((c) => c !== null);
  const kind = pick((p) => (p.kind !== undefined && p.kind !== 'preprint' ? p.kind : null)) ?? pick((p) => p.kind ?? null);
  const sourceIds = new Map<string, Paper['sourceIds'][number]>();
  for (const p of group) for (const sid of p.sourceIds) sourceIds.set(`${sid.source}\u0000${sid.id}`, sid);
  const merged: Paper = {
    ...best,
    title: best.title.replace(/\s*[.;,]\s*$/, ''),
    // The longest list; among lists as long, the one with full names ("Ada Lovelace" over "A. Lovelace").
    authors: longest(ranked.map((p) => p.authors), (a) => a.length * 10_000 + a.reduce((n, author) => n + author.name.replace(/[^\p{L}]/gu, '').length, 0)) ?? best.authors,
    // A publication's year over its preprint's: the venue that is not arXiv tells which is which.
    year: pick((p) => (p.venue !== null && !/^arxiv$/i.test(p.venue) ? p.year : null)) ?? pick((p) => p.year),
    venue: pick((p) => (p.venue !== null && !/^arxiv$/i.test(p.venue) ? p.venue : null)) ?? pick((p) => p.venue),
    abstract: longest(abstracts, (a) => a.length) ?? null,
    doi,
    arxivId,
    pmid,
    url: pick((p) => p.url),
    pdfUrl: pick((p) => p.pdfUrl),
    citationCount: citations.length === 0 ? null : Math.max(...citations),
    sources: [...new Set(group.flatMap((p) => p.sources))],
    sourceIds: [...sourceIds.values()],
    // A publication's kind over its preprint's, as for the year and venue (none when no record has one, as `best` then has none).
    ...(kind === null ? {} : { kind }),
  };
  return { ...merged, id: paperIdOf(merged) };
}

/** How many of the fields a reader wants a record has, with full author names. */
function completeness(p: Paper): number {
  const fullNames = p.authors.length > 0 && p.authors.every((a) => !/^(?:\p{L}\.\s*)+/u.test(a.name) && a.name.includes(' ')) ? 1 : 0;
  return [p.abstract, p.doi, p.venue, p.pdfUrl, p.citationCount, p.year].filter((v) => v !== null).length + fullNames + (p.authors.length > 0 ? 1 : 0);
}

function rank(p: Paper): number {
  return Math.min(...p.sources.map((s) => SOURCE_PRIORITY.indexOf(s)));
}

class UnionFind {
  private readonly parent: number[];
  private readonly groupMembers = new Map<number, number[]>();

  constructor(size: number) {
    this.parent = Array.from({ length: size }, (_, i) => i);
    for (let i = 0; i < size; i++) this.groupMembers.set(i, [i]);
  }

  find(i: number): number {
    let root = i;
    while (this.parent[root] !== root) root = this.parent[root]!;
    let node = i;
    while (this.parent[node] !== root) {
      const next = this.parent[node]!;
      this.parent[node] = root;
      node = next;
    }
    return root;
  }

  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return;
    this.parent[rb] = ra;
    this.groupMembers.set(ra, [...(this.groupMembers.get(ra) ?? []), ...(this.groupMembers.get(rb) ?? [])]);
    this.groupMembers.delete(rb);
  }

  members(i: number): readonly number[] {
    return this.groupMembers.get(this.find(i)) ?? [i];
  }
}
