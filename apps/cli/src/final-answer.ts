/**
 * The final answer of a solution page, as a line of text, from its machine markup
 * (`<section class="final-answer" data-final-answer>` … `<p class="answer">`, apps/solve's
 * solution-html.ts): plain text, or MathML whose reading order is the formula as written (tokens
 * and rows only, in KaTeX's span). An answer with a fraction, a power, a root, an index or a table is not flattened
 * (`\frac{1}{2}` would read "12"): undefined, and the reader opens the solution; a wrong answer is
 * worse than none.
 */
const FLAT_ELEMENTS = new Set(['span', 'math', 'semantics', 'mrow', 'mi', 'mn', 'mo', 'mtext', 'mspace', 'mstyle', 'mpadded']);
/** Operators read with a space on each side, as written in text (`x = 2`, `x ≤ 3`). */
const SPACED_OPERATORS = new Set(['=', '≠', '<', '>', '≤', '≥', '≈', '→', '⇒']);
const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
// C0/C1 controls (a terminal escape among them): never printed.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

function decodeEntities(text: string): string {
  return text.replace(/&(?:#(\d+)|#x([0-9a-f]+)|([a-z]+));/gi, (whole, decimal: string | undefined, hex: string | undefined, name: string | undefined) => {
    const code = decimal !== undefined ? Number(decimal) : hex !== undefined ? parseInt(hex, 16) : undefined;
    if (code !== undefined) return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    return ENTITIES[name!.toLowerCase()] ?? whole;
  });
}

export function finalAnswerOf(html: string): string | undefined {
  const section = /<section class="final-answer"[^>]*>([\s\S]*?)<\/section>/.exec(html)?.[1];
  const answer = section === undefined ? undefined : /<p class="answer">([\s\S]*?)<\/p>/.exec(section)?.[1];
  if (answer === undefined) return undefined;
  const elements = [...answer.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map(([, name]) => name!.toLowerCase());
  if (elements.some((name) => !FLAT_ELEMENTS.has(name))) return undefined;
  const text = decodeEntities(
    answer.replace(/<mo\b[^>]*>([\s\S]*?)<\/mo>/g, (whole, operator: string) => (SPACED_OPERATORS.has(decodeEntities(operator).trim()) ? ` ${operator.trim()} ` : whole)).replace(/<[^>]*>/g, ''),
  )
    .replace(CONTROLS, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text === '' ? undefined : text;
}
