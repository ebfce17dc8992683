import type { Paper, PaperKind } from '../messages/paper-search-model.js';
import { isArxivDoi } from './paper-text.js';
import { splitName } from './person-name.js';
import { publishedVenueOf, recordKindOf } from './record-kind.js';

/**
 * A collection's papers as RIS (`TAG  - value` lines, CRLF, one `ER  - ` per record), the type by
 * record kind (`recordKindOf`): the journal in `JO`, another venue (proceedings, book, school,
 * institution) in `T2`; one `AU` per author, written "Family, Given" as the RIS specification asks
 * (a reader takes "Yann LeCun" for one literal name).
 */
export function toRis(papers: readonly Paper[]): string {
  return papers.map(record).join('');
}

const RIS_TYPES: Readonly<Record<PaperKind, string>> = {
  journal_article: 'JOUR',
  conference_paper: 'CPAPER',
  preprint: 'UNPB',
  book: 'BOOK',
  book_chapter: 'CHAP',
  thesis: 'THES',
  report: 'RPRT',
  dataset: 'DATA',
  other: 'GEN',
};

function record(p: Paper): string {
  const venue = publishedVenueOf(p);
  const type = RIS_TYPES[recordKindOf(p)];
  const lines: [string, string | null][] = [
    ['TY', type],
    ['TI', p.title],
    ...p.authors.map((a): [string, string] => ['AU', risName(a.name)]),
    ['PY', p.year === null ? null : String(p.year)],
    ['JO', type === 'JOUR' ? venue : null],
    ['T2', type === 'JOUR' ? null : venue],
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

/** "Yann LeCun" → "LeCun, Yann"; an organisation or a single name stays as it is. */
function risName(name: string): string {
  const split = splitName(name);
  if ('literal' in split) return split.literal;
  return split.given === null ? split.family : `${split.family}, ${split.given}`;
}
