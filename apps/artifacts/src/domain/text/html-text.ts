const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  copy: '©',
  reg: '®',
  deg: '°',
  middot: '·',
  bull: '•',
};

/** Decodes numeric character references and the common named entities; unknown ones stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

/**
 * The readable text of an HTML page: the `<title>`, then the body with scripts, styles and other
 * non-content elements removed, block elements as line breaks, tags stripped, entities decoded.
 */
export function htmlToText(html: string): { title: string | undefined; text: string } {
  const titleMatch = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  const title = titleMatch?.[1] === undefined ? undefined : decodeEntities(titleMatch[1].replace(/\s+/g, ' ').trim()) || undefined;
  const body = html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style|noscript|template|svg|head|nav|footer)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|section|article|li|ul|ol|h[1-6]|tr|table|blockquote|pre|header|main)\s*>/gi, '\n\n')
    .replace(/<(p|div|section|article|li|h[1-6]|tr|blockquote|pre)\b[^>]*>/gi, '\n')
    .replace(/<[^>]+>/g, ' ');
  return { title, text: decodeEntities(body) };
}
