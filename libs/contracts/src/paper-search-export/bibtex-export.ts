import type { Paper } from '../messages/paper-search-model.js';
import { foldText, isArxivDoi } from './paper-text.js';
import { familyName, splitName } from './person-name.js';

/**
 * A collection's papers as BibTeX: `@article` for papers with a (non-arXiv) venue, `@misc` with
 * `eprint`/`archivePrefix` for preprints. Keys are `<family><year><first title word>`, unique within
 * the file; special characters are escaped and titles braced so styles keep their capitals.
 */
export function toBibtex(papers: readonly Paper[]): string {
  const keys = new CitationKeys();
  return papers.map((p) => entry(p, keys.next(p))).join('\n\n') + (papers.length > 0 ? '\n' : '');
}

function entry(p: Paper, key: string): string {
  const journal = p.venue !== null && !/^arxiv$/i.test(p.venue) ? p.venue : null;
  const fields: [string, string | null][] = [
    ['title', `{${escape(p.title)}}`],
    ['author', p.authors.length === 0 ? null : p.authors.map((a) => bibtexName(a.name)).join(' and ')],
    ['year', p.year === null ? null : String(p.year)],
    [journal === null ? 'howpublished' : 'journal', journal === null ? (p.arxivId === null ? null : 'arXiv') : escape(journal)],
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
  return `@${journal === null ? 'misc' : 'article'}{${key},\n${body}\n}`;
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
