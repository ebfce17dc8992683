/** Elements whose content is never page text (code, styling, embedded documents, the head). */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head', 'iframe', 'object', 'canvas', 'select', 'textarea']);

/** A page's navigation and footer: boilerplate around a document's content (dropped on request). */
const BOILERPLATE = new Set(['nav', 'footer']);

/** Elements that break a line: without the break, "<p>a</p><p>b</p>" would read "ab". */
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'dd', 'div', 'dl', 'dt', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2',
  'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'tr', 'ul',
]);

/** Cells separate words on one line. */
const CELLS = new Set(['td', 'th']);

/** Named character references a problem page plausibly uses; others are kept verbatim. */
const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', times: '×', divide: '÷', minus: '−', plusmn: '±', le: '≤', ge: '≥',
  ne: '≠', asymp: '≈', middot: '·', frac12: '½', frac14: '¼', frac34: '¾', sup1: '¹', sup2: '²', sup3: '³', deg: '°', pi: 'π',
  radic: '√', infin: '∞', hellip: '…', ndash: '–', mdash: '—', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', prime: '′',
  alpha: 'α', beta: 'β', gamma: 'γ', delta: 'δ', theta: 'θ', lambda: 'λ', mu: 'μ', sigma: 'σ', omega: 'ω', Delta: 'Δ', Sigma: 'Σ',
  copy: '©', reg: '®', bull: '•',
};

function isNameStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function isNameChar(code: number): boolean {
  return isNameStart(code) || (code >= 48 && code <= 57) || code === 45;
}

export interface HtmlReadingOptions {
  /** Drop `<nav>` and `<footer>` too (a document's boilerplate; a problem page keeps them). Default false. */
  readonly dropBoilerplate?: boolean;
  /** Block elements end a paragraph: one line break (default), or a blank line (a document's paragraphs, for chunking). */
  readonly paragraphBreak?: '\n' | '\n\n';
}

export interface HtmlReading {
  /** The `<title>`, decoded and collapsed; undefined when absent or empty. */
  readonly title: string | undefined;
  readonly text: string;
}

/**
 * The readable text of an HTML page: script, style and head dropped, block elements as line breaks
 * (`<br>` always one), character references decoded, whitespace collapsed; and its title. One linear
 * pass with `indexOf` and no backtracking regular expressions, so a hostile page costs time in its size
 * only. Not a full HTML parser: enough to read a problem or a document off a page.
 */
export function readHtml(html: string, options: HtmlReadingOptions = {}): HtmlReading {
  const paragraphBreak = options.paragraphBreak ?? '\n';
  const parts: string[] = [];
  const n = html.length;
  let title: string | undefined;
  let i = 0;
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt === -1) {
      parts.push(html.slice(i));
      break;
    }
    parts.push(html.slice(i, lt));
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end === -1 ? n : end + 3;
      continue;
    }
    const closing = html.charCodeAt(lt + 1) === 47; // '/'
    const nameStart = closing ? lt + 2 : lt + 1;
    const first = html.charCodeAt(nameStart);
    if (html.charCodeAt(lt + 1) === 33 || html.charCodeAt(lt + 1) === 63) {
      // <!DOCTYPE ...>, <![CDATA[ ...]]>, <?xml ...?>: declarations, not text.
      const end = html.indexOf('>', lt + 2);
      i = end === -1 ? n : end + 1;
      continue;
    }
    if (!isNameStart(first)) {
      // A bare "<" in text ("x < 3"): keep it.
      parts.push('<');
      i = lt + 1;
      continue;
    }
    let nameEnd = nameStart + 1;
    while (nameEnd < n && isNameChar(html.charCodeAt(nameEnd))) nameEnd += 1;
    const name = html.slice(nameStart, nameEnd).toLowerCase();
    const gt = html.indexOf('>', nameEnd);
    if (gt === -1) break; // an unterminated tag runs to the end of the document
    i = gt + 1;
    const selfClosed = html.charCodeAt(gt - 1) === 47;
    if (!closing && name === 'title' && title === undefined && !selfClosed) {
      const end = closingTagAt(html, name, i);
      title = cleanTitle(html.slice(i, end.start));
      i = end.after;
      continue;
    }
    if (!closing && !selfClosed && (SKIPPED.has(name) || (options.dropBoilerplate === true && BOILERPLATE.has(name)))) {
      const end = closingTagAt(html, name, i);
      if (name === 'head' && title === undefined) title = titleWithin(html.slice(i, end.start));
      i = end.after;
      continue;
    }
    if (name === 'br') parts.push('\n');
    else if (BLOCKS.has(name)) parts.push(paragraphBreak);
    else if (CELLS.has(name)) parts.push(' ');
  }
  const lines = decodeEntities(parts.join(''))
    .split('\n')
    .map((line) => line.replace(/[\s\u00a0]+/g, ' ').trim());
  return { title, text: paragraphBreak === '\n' ? lines.filter((line) => line !== '').join('\n') : joinParagraphs(lines) };
}

/** The readable text of an HTML page (see `readHtml`), one line per block. */
export function htmlToText(html: string): string {
  return readHtml(html).text;
}

/** The `<title>` inside a skipped `<head>`. */
function titleWithin(head: string): string | undefined {
  const lower = head.toLowerCase();
  const open = lower.indexOf('<title');
  if (open === -1 || isNameChar(lower.charCodeAt(open + 6))) return undefined;
  const gt = lower.indexOf('>', open + 6);
  if (gt === -1) return undefined;
  const close = lower.indexOf('</title', gt + 1);
  return cleanTitle(head.slice(gt + 1, close === -1 ? head.length : close));
}

function cleanTitle(raw: string): string | undefined {
  return decodeEntities(raw).replace(/[\s\u00a0]+/g, ' ').trim() || undefined;
}

/** Lines with runs of empty ones as one blank line, none at either end. */
function joinParagraphs(lines: readonly string[]): string {
  const kept: string[] = [];
  for (const line of lines) {
    if (line === '' && (kept.length === 0 || kept.at(-1) === '')) continue;
    kept.push(line);
  }
  while (kept.at(-1) === '') kept.pop();
  return kept.join('\n');
}

/** Where `</name ...>` at or after `from` starts and ends (the end of the document when it never closes). */
function closingTagAt(html: string, name: string, from: number): { readonly start: number; readonly after: number } {
  let at = from;
  for (;;) {
    const candidate = html.indexOf('</', at);
    if (candidate === -1) return { start: html.length, after: html.length };
    const end = candidate + 2 + name.length;
    if (html.slice(candidate + 2, end).toLowerCase() === name && !isNameChar(html.charCodeAt(end))) {
      const gt = html.indexOf('>', end);
      return { start: candidate, after: gt === -1 ? html.length : gt + 1 };
    }
    at = candidate + 2;
  }
}

/** Numeric character references and the named ones a problem or document plausibly uses; others stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/g, (whole, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[body] ?? whole;
  });
}
