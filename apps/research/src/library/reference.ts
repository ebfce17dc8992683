import { findArxivId, findDoi, normaliseArxivId, normaliseDoi, normalisePmid } from '@openpaw/providers';
import type { BibtexEntry } from './bibtex/parse-bibtex.js';
import { cslOfRisRecord, displayNameOf, plainText as text, yearOf } from './citation-js.js';
import type { RisRecord } from './ris/parse-ris.js';

/** A reference in a user's library, as imported from BibTeX or RIS. */
export interface LibraryReference {
  /** The BibTeX key or RIS ID; a derived key when the file had none. */
  readonly citationKey: string;
  /** `article`, `inproceedings`, ... (BibTeX) or the RIS type (`JOUR`, `CONF`, ...). */
  readonly entryType: string;
  readonly title: string;
  readonly authors: readonly string[];
  readonly year: number | null;
  readonly venue: string | null;
  readonly abstract: string | null;
  readonly doi: string | null;
  readonly arxivId: string | null;
  readonly pmid: string | null;
  readonly url: string | null;
  readonly keywords: readonly string[];
}

export type ReferenceResult = { readonly ok: true; readonly reference: LibraryReference } | { readonly ok: false; readonly reason: string };

export function referenceFromBibtex(entry: BibtexEntry): ReferenceResult {
  const { csl } = entry;
  // Identifiers are read as written (Citation.js maps no arXiv eprint to CSL); braces around them are not part of them.
  const raw = (name: string): string | null => text(entry.fields[name]?.replace(/[{}]/g, ''));
  const title = text(csl.title);
  if (title === null) return { ok: false, reason: `@${entry.type}{${entry.key}} has no title` };
  const eprint = raw('eprint');
  const archive = (raw('archiveprefix') ?? raw('eprinttype') ?? '').toLowerCase();
  const url = text(csl.URL) ?? raw('url');
  const doi = normaliseDoi(text(csl.DOI) ?? raw('doi')) ?? findDoi(url);
  return {
    ok: true,
    reference: {
      citationKey: entry.key,
      entryType: entry.type,
      title,
      authors: (csl.author ?? csl.editor ?? []).map(displayNameOf).filter((n) => n !== '' && n !== 'others'),
      year: yearOf(csl) ?? year(raw('year') ?? raw('date')),
      venue: text(csl['container-title']) ?? (archive === 'arxiv' ? 'arXiv' : null) ?? text(csl.publisher),
      abstract: text(csl.abstract),
      doi,
      arxivId: (archive === 'arxiv' || archive === '' ? normaliseArxivId(eprint) : null) ?? normaliseArxivId(raw('arxiv')) ?? findArxivId(url) ?? normaliseArxivId(doi),
      pmid: normalisePmid(text(csl.PMID) ?? raw('pmid')),
      url,
      keywords: splitKeywords(text(csl.keyword)),
    },
  };
}

export function referenceFromRis(record: RisRecord, index: number): ReferenceResult {
  const first = (...tags: string[]): string | null => {
    for (const tag of tags) {
      const value = record.tags[tag]?.find((v) => v.trim() !== '');
      if (value !== undefined) return value.trim();
    }
    return null;
  };
  const all = (...tags: string[]): string[] => tags.flatMap((t) => record.tags[t] ?? []).filter((v) => v.trim() !== '');
  // The tags' meanings per type (which tag is the title, the container, the date) are Citation.js's;
  // identifiers and keywords are read from the tags (CSL has no arXiv id, and joins keywords with commas).
  const csl = cslOfRisRecord({ TY: record.type, ...Object.fromEntries(Object.entries(record.tags).map(([tag, values]) => [tag, values.length === 1 ? values[0]! : values])) });
  const title = text(csl.title) ?? first('TI', 'T1', 'CT', 'BT');
  if (title === null) return { ok: false, reason: `RIS record ${index + 1} (${record.type}) has no title` };
  const urls = all('UR', 'L2');
  const an = first('AN');
  const doi = normaliseDoi(first('DO')) ?? urls.map(findDoi).find((d) => d !== null) ?? null;
  return {
    ok: true,
    reference: {
      citationKey: first('ID') ?? '',
      entryType: record.type,
      title,
      authors: (csl.author ?? csl.editor ?? []).map(displayNameOf).filter((n) => n !== ''),
      year: yearOf(csl) ?? year(first('PY', 'Y1', 'DA')),
      venue: text(csl['container-title']) ?? text(csl['event-title']) ?? first('JO', 'JF', 'JA', 'J2'),
      abstract: text(csl.abstract) ?? first('AB', 'N2'),
      doi,
      arxivId: normaliseArxivId(an) ?? urls.map(findArxivId).find((a) => a !== null) ?? normaliseArxivId(doi),
      pmid: an !== null && /^pmid:/i.test(an) ? normalisePmid(an) : null,
      url: urls[0] ?? null,
      keywords: all('KW'),
    },
  };
}

function year(value: string | null): number | null {
  const match = /\b(1[5-9]\d{2}|2\d{3})\b/.exec(value ?? '');
  return match?.[1] === undefined ? null : Number(match[1]);
}

function splitKeywords(value: string | null): string[] {
  return (value ?? '')
    .split(/[;,]/)
    .map((k) => k.trim())
    .filter((k) => k !== '');
}
