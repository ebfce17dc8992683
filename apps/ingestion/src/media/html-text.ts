/** Elements whose content is never page text (code, styling, embedded documents, the head). */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head', 'iframe', 'object', 'canvas', 'select', 'textarea']);

/** Elements that break a line: without the break, "<p>a</p><p>b</p>" would read "ab". */
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'div', 'dl', 'dt', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2',
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
};

function isNameStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function isNameChar(code: number): boolean {
  return isNameStart(code) || (code >= 48 && code <= 57) || code === 45;
}

/**
 * The readable text of an HTML page (a problem given by URL): script, style and head dropped, block
 * elements as line breaks, character references decoded, whitespace collapsed. One linear pass with
 * `indexOf` and no backtracking regular expressions, so a hostile page costs time in its size only.
 * Not a full HTML parser: it is enough to read a problem off a page, which is then normalised as text.
 */
export function htmlToText(html: string): string {
  const parts: string[] = [];
  const n = html.length;
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
    if (!closing && SKIPPED.has(name) && html.charCodeAt(gt - 1) !== 47) {
      i = afterClosingTag(html, name, i);
      continue;
    }
    if (BLOCKS.has(name)) parts.push('\n');
    else if (CELLS.has(name)) parts.push(' ');
  }
  return decodeEntities(parts.join(''))
    .split('\n')
    .map((line) => line.replace(/[\s\u00a0]+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}

/** Index just past `</name ...>` at or after `from`, or the end of the document. */
function afterClosingTag(html: string, name: string, from: number): number {
  let at = from;
  for (;;) {
    const candidate = html.indexOf('</', at);
    if (candidate === -1) return html.length;
    const end = candidate + 2 + name.length;
    if (html.slice(candidate + 2, end).toLowerCase() === name && !isNameChar(html.charCodeAt(end))) {
      const gt = html.indexOf('>', end);
      return gt === -1 ? html.length : gt + 1;
    }
    at = candidate + 2;
  }
}

function decodeEntities(text: string): string {
  return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/g, (whole, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[body] ?? whole;
  });
}
