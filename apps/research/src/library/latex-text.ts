const ACCENTS: Readonly<Record<string, string>> = {
  "'": '\u0301',
  '`': '\u0300',
  '^': '\u0302',
  '"': '\u0308',
  '~': '\u0303',
  '=': '\u0304',
  '.': '\u0307',
  u: '\u0306',
  v: '\u030c',
  H: '\u030b',
  c: '\u0327',
  k: '\u0328',
  r: '\u030a',
};
const SYMBOLS: Readonly<Record<string, string>> = { ss: 'ß', o: 'ø', O: 'Ø', ae: 'æ', AE: 'Æ', oe: 'œ', OE: 'Œ', aa: 'å', AA: 'Å', l: 'ł', L: 'Ł', i: 'ı', j: 'ȷ' };

/**
 * Plain Unicode text of a BibTeX value: accent commands (`{\"o}`, `\'e`, `\c{c}`) become
 * characters, `\ss` and friends their letters, escaped specials (`\&`) themselves, dashes
 * typographic, formatting commands (`\emph{x}`) their content; braces and extra spaces go.
 */
export function latexToText(value: string): string {
  let text = value
    // Escaped braces are text: keep them out of the brace stripping below.
    .replace(/\\\{/g, '\u0001')
    .replace(/\\\}/g, '\u0002')
    .replace(/\\([`'^"~=.])\s*\{?\s*(\\?[a-zA-Z])\s*\}?/g, (_, accent: string, letter: string) => `${letter === '\\i' ? 'i' : letter.replace('\\', '')}${ACCENTS[accent] ?? ''}`)
    .replace(/\\([uvHckr])\s*\{\s*([a-zA-Z])\s*\}/g, (_, accent: string, letter: string) => `${letter}${ACCENTS[accent] ?? ''}`)
    .replace(/\\([uvHckr])\s+([a-zA-Z])/g, (_, accent: string, letter: string) => `${letter}${ACCENTS[accent] ?? ''}`)
    .replace(/\\(ss|ae|AE|oe|OE|aa|AA|o|O|l|L|i|j)(?![a-zA-Z])\s*/g, (_, name: string) => SYMBOLS[name] ?? name)
    .replace(/\\([&%$#_])/g, '$1')
    .replace(/\\(?:textit|textbf|emph|textsc|textrm|texttt|mathrm|mbox|text)\s*/g, '')
    .replace(/---/g, '—')
    .replace(/--/g, '–')
    .replace(/(?<!\\)~/g, ' ')
    .replace(/\\[a-zA-Z]+\s*/g, '')
    .replace(/[{}]/g, '');
  text = text.normalize('NFC').replace(/\u0001/g, '{').replace(/\u0002/g, '}');
  return text.replace(/\s+/g, ' ').trim();
}
