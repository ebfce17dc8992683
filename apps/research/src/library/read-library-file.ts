import { createHash } from 'node:crypto';
import { parseBibtex } from './bibtex/parse-bibtex.js';
import { type LibraryReference, referenceFromBibtex, referenceFromRis, type ReferenceResult } from './reference.js';
import { parseRis } from './ris/parse-ris.js';

export type LibraryFormat = 'bibtex' | 'ris';

export interface LibraryFile {
  readonly references: LibraryReference[];
  readonly skipped: { readonly entry: number; readonly reason: string }[];
}

/** Reads a BibTeX or RIS file into references; what cannot be read is listed, never dropped silently. */
export function readLibraryFile(format: LibraryFormat, content: string): LibraryFile {
  const skipped: { entry: number; reason: string }[] = [];
  let results: ReferenceResult[];
  if (format === 'bibtex') {
    const parsed = parseBibtex(content);
    skipped.push(...parsed.errors);
    results = parsed.entries.map(referenceFromBibtex);
  } else {
    const parsed = parseRis(content);
    skipped.push(...parsed.errors);
    results = parsed.records.map((r, i) => referenceFromRis(r, i));
  }
  const references: LibraryReference[] = [];
  results.forEach((result, entry) => {
    if (!result.ok) skipped.push({ entry, reason: result.reason });
    else references.push(result.reference.citationKey === '' ? { ...result.reference, citationKey: derivedKey(result.reference) } : result.reference);
  });
  return { references, skipped };
}

function derivedKey(r: LibraryReference): string {
  return `ref-${createHash('sha256').update(`${r.title}\u0000${r.year ?? ''}`).digest('hex').slice(0, 12)}`;
}
