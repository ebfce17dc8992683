import type { Paper, PaperKind } from '../messages/paper-search-model.js';
import { foldText, isArxivDoi } from './paper-text.js';
import { familyName, splitName } from './person-name.js';
import { publishedVenueOf, recordKindOf } from './record-kind.js';

/** Per record kind: the BibTeX entry type and the field its venue goes in. */
const BIBTEX_TYPES: Readonly<Record<PaperKind, { readonly type: string; readonly venueField: string }>> = {
  journal_article: { type: 'article', venueField: 'journal' },
  conference_paper: { type: 'inproceedings', venueField: 'booktitle' },
  preprint: { type: 'misc', venueField: 'howpublished' },
  book: { type: 'book', venueField: 'series' },
  book_chapter: { type: 'incollection', venueField: 'booktitle' },
  thesis: { type: 'phdthesis', venueField: 'school' },
  report: { type: 'techreport', venueField: 'institution' },
  dataset: { type: 'misc', venueField: 'howpublished' },
  other: { type: 'misc', venueField: 'howpublished' },
};

/**
 * A collection's papers as BibTeX, the entry type by record kind (`recordKindOf`): `@article` with
 * `journal`, `@inproceedings` with `booktitle`, `@incollection`, `@book`, `@phdthesis`,
 * `@techreport`, and `@misc` (with `eprint`/`archivePrefix` for preprints). Keys are `<family><year><first title word>`, unique within
 * the file; special characters are escaped and titles braced so styles keep their capitals.
 */
export function toBibtex(papers: readonly Paper[]): string {
  const keys = new CitationKeys();
  return papers.map((p) => entry(p, keys.next(p))).join('\n\n') + (papers.length > 0 ? '\n' : '');
}

function entry(p: Paper, key: string): string {
  const venue = publishedVenueOf(p);
  const { type, venueField } = BIBTEX_TYPES[recordKindOf(p)];
  const fields: [string, string | null][] = [
    ['title', `{${escape(p.title)}}`],
    ['author', p.authors.length === 0 ? null : p.authors.map((a) => bibtexName(a.name)).join(' and ')],
    ['year', p.year === null ? null : String(p.year)],
    venue === null ? ['howpublished', p.arxivId === null ? null : 'arXiv'] : [venueField, escape(venue)],
    ['doi', p.doi === null || isArxivDoi(p.doi) ? null : escape(p.doi)],
    ['eprint', p.arxivId],
    ['archivePrefix', p.arxivId === null ? null : 'arXiv'],
    ['pmid', p.pmid],
    ['url', p.url],
    ['abstract', p.abstract === null ? null : escape(p.abstract)],
  ];
  const body = fields
    .filter((f): f is [string, string] => f[1] !== null)
    .map(([name, value]) => `  ${name} = {${value}}`)
    .join(',\n');
  return `@${type}{${key},\n${body}\n}`;
}

function bibtexName(name: string): string {
  const split = splitName(name);
  if ('literal' in split) return `{${escape(split.literal)}}`;
  return split.given === null ? escape(split.family) : `${escape(split.family)}, ${escape(split.given)}`;
}

/** LaTeX special characters, escaped for a braced BibTeX value. */
export function escape(text: string): string {
  return text.replace(/[\\{}&%$#_~^]/g, (c) => {
    switch (c) {
      case '\\':
        return '\\textbackslash{}';
      case '~':
        return '\\textasciitilde{}';
      case '^':
        return '\\textasciicircum{}';
      default:
        return `\\${c}`;
    }
  });
}

class CitationKeys {
  private readonly used = new Set<string>();

  next(p: Paper): string {
    const author = foldText(p.authors[0] === undefined ? 'anon' : familyName(p.authors[0].name)).replace(/\s+/g, '') || 'anon';
    const word = foldText(p.title).split(' ').find((w) => w.length > 3) ?? 'paper';
    const base = `${author}${p.year ?? ''}${word}`.replace(/[^a-z0-9]/g, '');
    let key = base;
    for (let n = 0; this.used.has(key); n++) key = `${base}${String.fromCharCode(97 + (n % 26))}${n >= 26 ? Math.floor(n / 26) : ''}`;
    this.used.add(key);
    return key;
  }
}
