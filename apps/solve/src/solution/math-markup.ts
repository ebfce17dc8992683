import katex from 'katex';
import type { parse } from 'mathjs';

/** mathjs' parser, loaded by the caller (`renderSolutionHtml`) with the first solution, not at the service's start (ADR 0039). */
export type MathParser = typeof parse;

/**
 * Model text to inert HTML, with mathematics rendered server-side to MathML.
 *
 * - LaTeX between `\( \)`, `\[ \]`, `$$ $$` or `$ $` is rendered with KaTeX (MathML output only, so
 *   no fonts, stylesheets or scripts are needed; `trust: false`, so `\href`, `\url`, `\includegraphics`
 *   and the HTML extensions render as inert error text).
 * - A field that is nothing but a plain-text formula (`2 x + 3 = 7`, `12 * (3 + 4)`, `x = 7/3`: what
 *   the local model writes) is parsed with mathjs and rendered the same way.
 * - Everything else is text: HTML-escaped, so model output can never add elements or attributes.
 *
 * The result never contains `://`: KaTeX's `xmlns` attribute and TeX annotation are dropped (the HTML
 * parser puts `<math>` in the MathML namespace by itself), and in text the colon of a `scheme://` is
 * written as `&#58;`, so a URL in model text shows as text but is no reference to fetch or follow.
 */
export function renderRichText(text: string, parseMath: MathParser): string {
  const source = text.replace(/\r\n?/g, '\n');
  const formula = plainFormulaTex(source, parseMath);
  if (formula !== undefined) return renderTex(formula, false) ?? escapeHtml(source);
  let html = '';
  for (const segment of splitMath(source)) {
    html += segment.kind === 'text' ? escapeHtml(segment.text) : (renderTex(segment.tex, segment.display) ?? escapeHtml(segment.raw));
  }
  return html;
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c)
    .replace(/:(?=\/\/)/g, '&#58;')
    .replace(CONTROL_CHARS, '');
}

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
// C0/C1 controls except tab and newline, and lone surrogates: not allowed in HTML text.
const CONTROL_CHARS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

type Segment =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'math'; readonly tex: string; readonly display: boolean; readonly raw: string };

/**
 * `$...$` follows pandoc's rule (no space after the opening or before the closing `$`, no digit right
 * after the closing one), so prices such as "$5 and $10" stay text.
 */
const MATH = /\\\[([\s\S]+?)\\\]|\$\$([\s\S]+?)\$\$|\\\(([\s\S]+?)\\\)|\$(?!\s)([^$\n]+?)(?<!\s)\$(?!\d)/g;

function splitMath(text: string): Segment[] {
  const segments: Segment[] = [];
  let last = 0;
  for (const match of text.matchAll(MATH)) {
    const index = match.index;
    if (index > last) segments.push({ kind: 'text', text: text.slice(last, index) });
    const [raw, displayBracket, displayDollar, inlineParen, inlineDollar] = match;
    const tex = displayBracket ?? displayDollar ?? inlineParen ?? inlineDollar ?? '';
    segments.push({ kind: 'math', tex, display: displayBracket !== undefined || displayDollar !== undefined, raw });
    last = index + raw.length;
  }
  if (last < text.length) segments.push({ kind: 'text', text: text.slice(last) });
  return segments;
}

const MAX_TEX_LENGTH = 2_000;

/** KaTeX to MathML, or undefined when it cannot be rendered safely (the caller shows the source as text). */
function renderTex(tex: string, display: boolean): string | undefined {
  if (tex.trim() === '' || tex.length > MAX_TEX_LENGTH) return undefined;
  let html: string;
  try {
    html = katex.renderToString(tex, {
      output: 'mathml',
      displayMode: display,
      throwOnError: false,
      trust: false,
      strict: 'ignore',
      maxSize: 20,
      maxExpand: 200,
    });
  } catch {
    return undefined;
  }
  const cleaned = html
    .replace(/<annotation\b[^>]*>[\s\S]*?<\/annotation>/g, '')
    .replace(/\s+xmlns="[^"]*"/g, '');
  // Defence in depth: KaTeX escapes its input, but nothing active or external may pass in any case.
  if (/<(?:script|style|iframe|object|embed|img|a|link|svg|foreignObject)\b|\s(?:on\w+|href|src|srcset|style|action|formaction)\s*=|:\/\//i.test(cleaned)) {
    return undefined;
  }
  return cleaned;
}

const FORMULA_CHARS = /^[0-9A-Za-z.+\-*/^()=\s,]+$/;
const FUNCTIONS = new Set(['sqrt', 'cbrt', 'abs', 'exp', 'log', 'ln', 'sin', 'cos', 'tan', 'pi']);

/**
 * The TeX of a field that is one plain-text formula (one `=` at most, only formula characters, no
 * words other than function names, at least one operator or `=`), else undefined.
 */
function plainFormulaTex(text: string, parseMath: MathParser): string | undefined {
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > 300 || !FORMULA_CHARS.test(trimmed) || !/[=+\-*/^]/.test(trimmed)) return undefined;
  for (const word of trimmed.match(/[A-Za-z]{2,}/g) ?? []) {
    if (!FUNCTIONS.has(word.toLowerCase())) return undefined;
  }
  const sides = trimmed.split('=').map((side) => side.trim());
  if (sides.length > 2 || sides.some((side) => side === '')) return undefined;
  try {
    // mathjs writes implicit multiplication as `~` (a space); TeX juxtaposition reads better: 2x.
    return sides.map((side) => parseMath(side).toTex({ parenthesis: 'keep', implicit: 'hide' }).replace(/~\s*/g, ' ').trim()).join(' = ');
  } catch {
    return undefined;
  }
}
