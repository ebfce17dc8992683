import type { Paper } from '../messages/paper-search-model.js';
import { isArxivDoi } from './paper-text.js';

/**
 * A collection's papers as RIS (`TAG  - value` lines, CRLF, one `ER  - ` per record): `JOUR` for
 * papers with a journal, `UNPB` for preprints, `GEN` otherwise; one `AU` per author.
 */
export function toRis(papers: readonly Paper[]): string {
  return papers.map(record).join('');
}

function record(p: Paper): string {
  const journal = p.venue !== null && !/^arxiv$/i.test(p.venue) ? p.venue : null;
  const type = journal !== null ? 'JOUR' : p.arxivId !== null ? 'UNPB' : 'GEN';
  const lines: [string, string | null][] = [
    ['TY', type],
    ['TI', p.title],
    ...p.authors.map((a): [string, string] => ['AU', a.name]),
    ['PY', p.year === null ? null : String(p.year)],
    ['JO', journal],
    ['AB', p.abstract],
    ['DO', p.doi === null || isArxivDoi(p.doi) ? null : p.doi],
    ['UR', p.url],
    ['L1', p.pdfUrl],
    ['AN', p.arxivId === null ? (p.pmid === null ? null : `PMID:${p.pmid}`) : `arXiv:${p.arxivId}`],
    ['ER', ''],
  ];
  return lines
    .filter((l): l is [string, string] => l[1] !== null)
    .map(([tag, value]) => `${tag}  - ${value.replace(/[\r\n]+/g, ' ')}\r\n`)
    .join('');
}
