import { findArxivId, findDoi, normaliseArxivId, normaliseDoi, normalisePmid } from '@openpaw/providers';
import { type BibtexEntry, splitBibtexNames } from './bibtex/parse-bibtex.js';
import { latexToText } from './latex-text.js';
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
  const f = (name: string): string | null => {
    const value = entry.fields[name];
    if (value === undefined) return null;
    const text = latexToText(value);
    return text === '' ? null : text;
  };
  const title = f('title');
  if (title === null) return { ok: false, reason: `@${entry.type}{${entry.key}} has no title` };
  const eprint = f('eprint');
  const archive = (f('archiveprefix') ?? f('eprinttype') ?? '').toLowerCase();
  const url = f('url');
  const doi = normaliseDoi(f('doi')) ?? findDoi(url);
  return {
    ok: true,
    reference: {
      citationKey: entry.key,
      entryType: entry.type,
      title,
      authors: splitBibtexNames(entry.fields['author'] ?? entry.fields['editor'] ?? '').map(displayName).filter((n) => n !== '' && n !== 'others'),
      year: year(f('year') ?? f('date')),
      venue: f('journal') ?? f('journaltitle') ?? f('booktitle') ?? (archive === 'arxiv' ? 'arXiv' : null) ?? f('publisher'),
      abstract: f('abstract'),
      doi,
      arxivId: (archive === 'arxiv' || archive === '' ? normaliseArxivId(eprint) : null) ?? normaliseArxivId(f('arxiv')) ?? findArxivId(url) ?? normaliseArxivId(doi),
      pmid: normalisePmid(f('pmid')),
      url,
      keywords: splitKeywords(f('keywords')),
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
  const title = first('TI', 'T1', 'CT', 'BT');
  if (title === null) return { ok: false, reason: `RIS record ${index + 1} (${record.type}) has no title` };
  const urls = all('UR', 'L2');
  const an = first('AN');
  const doi = normaliseDoi(first('DO')) ?? urls.map(findDoi).find((d) => d !== null) ?? null;
  const title2 = record.tags['TI'] !== undefined ? first('T2') : null;
  return {
    ok: true,
    reference: {
      citationKey: first('ID') ?? '',
      entryType: record.type,
      title,
      authors: all('AU', 'A1').map(displayName),
      year: year(first('PY', 'Y1', 'DA')),
      venue: first('JO', 'JF', 'JA', 'J2') ?? title2,
      abstract: first('AB', 'N2'),
      doi,
      arxivId: normaliseArxivId(an) ?? urls.map(findArxivId).find((a) => a !== null) ?? normaliseArxivId(doi),
      pmid: an !== null && /^pmid:/i.test(an) ? normalisePmid(an) : null,
      url: urls[0] ?? null,
      keywords: all('KW'),
    },
  };
}

/** "Vaswani, Ashish" → "Ashish Vaswani"; "{Google Brain}" → "Google Brain". */
function displayName(raw: string): string {
  const trimmed = raw.trim();
  if (/^\{.*\}$/.test(trimmed)) return latexToText(trimmed);
  const parts = trimmed.split(',').map((p) => latexToText(p));
  if (parts.length === 2 && parts[1] !== '') return `${parts[1]} ${parts[0]}`;
  if (parts.length === 3 && parts[2] !== '') return `${parts[2]} ${parts[0]} ${parts[1]}`;
  return latexToText(trimmed);
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
