import { createHash } from 'node:crypto';
import { isArxivDoi } from '@openpaw/contracts';
import { normaliseTitle } from '../text/normalise.js';

export { isArxivDoi } from '@openpaw/contracts';

/**
 * A paper's id, stable across iterations and sources: from the strongest identifier it has, in
 * dedup's order (a publisher DOI, the arXiv id, the PMID, an arXiv DOI), else a hash of its title.
 */
export function paperIdOf(p: { readonly doi: string | null; readonly arxivId: string | null; readonly pmid: string | null; readonly title: string }): string {
  if (p.doi !== null && !isArxivDoi(p.doi)) return `doi:${p.doi}`;
  if (p.arxivId !== null) return `arxiv:${p.arxivId}`;
  if (p.pmid !== null) return `pmid:${p.pmid}`;
  if (p.doi !== null) return `doi:${p.doi}`;
  return `title:${createHash('sha256').update(normaliseTitle(p.title)).digest('hex').slice(0, 24)}`;
}
