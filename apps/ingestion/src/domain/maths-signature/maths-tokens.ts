/** One lexical token of a problem's maths. */
export type MathsToken =
  | { readonly kind: 'number'; readonly text: string }
  | { readonly kind: 'unknown'; readonly text: string }
  | { readonly kind: 'function'; readonly text: string }
  | { readonly kind: 'operator'; readonly text: string }
  | { readonly kind: 'open' | 'close'; readonly text: string };

type RawToken = MathsToken | { readonly kind: 'word' | 'other'; readonly text: string };

/** Functions and constants a school problem names in words; any other word of two letters or more is prose. */
export const FUNCTIONS = new Set(['sqrt', 'sin', 'cos', 'tan', 'log', 'ln', 'exp', 'abs']);
const CONSTANTS = new Set(['pi']);
/** Single letters that name a function when followed by "(": f(x) = 2x + 1. */
const FUNCTION_LETTERS = new Set(['f', 'g', 'h']);

const TOKEN = /(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)|([a-z]+)|(<=|>=|!=|[-+*/^=<>])|([([])|([)\]])|(\S)/g;

/** "(3/4) x (5/6)", "(5 + 1) x 4": a lone x spaced between operands, one of them bracketed, is the times sign as OCR reads "×". */
const SPACED_TIMES = /([\d)])\s+x\s+(?=[(\d])/g;

function lex(text: string): RawToken[] {
  const tokens: RawToken[] = [];
  // Spaced, so "3x(x + 1)" keeps its unknown; between two numbers the rule below covers it unspaced too.
  for (const m of text.replace(SPACED_TIMES, '$1 * ').matchAll(TOKEN)) {
    const [, number, word, operator, open, close, other] = m;
    if (number !== undefined) tokens.push({ kind: 'number', text: canonicalNumber(number) });
    else if (word !== undefined) {
      if (word.length === 1) tokens.push({ kind: 'unknown', text: word });
      else if (FUNCTIONS.has(word)) tokens.push({ kind: 'function', text: word });
      else if (CONSTANTS.has(word)) tokens.push({ kind: 'unknown', text: word });
      else tokens.push({ kind: 'word', text: word });
    } else if (operator !== undefined) tokens.push({ kind: 'operator', text: operator });
    else if (open !== undefined) tokens.push({ kind: 'open', text: '(' });
    else if (close !== undefined) tokens.push({ kind: 'close', text: ')' });
    else tokens.push({ kind: 'other', text: other ?? '' });
  }
  // "17 x 9": an x between two numbers is the times sign as typed (and as OCR reads "×"), not an unknown.
  return tokens.map((t, i) =>
    t.kind === 'unknown' && t.text === 'x' && tokens[i - 1]?.kind === 'number' && tokens[i + 1]?.kind === 'number' ? { kind: 'operator', text: '*' } : t,
  );
}

/**
 * Signs that only punctuate prose around the maths ("Solve 2x = 6.", "£3", "20%", "(1, 2)"): the lexer
 * ends a run of maths at them. Any other sign it does not lex ("5!", "log_2", a bar left unpaired, "~")
 * is maths it does not read.
 */
const PROSE_SIGNS = /^[.,;:?'"$£€¥%°&#@]$/;

/**
 * The first sign the lexer does not read that touches the maths (a number, an unknown, an operator or a
 * bracket stands next to it, spaces aside), or undefined. Ending the run there would sign a part of the
 * maths: "5! + 3*2" as 3*2 (one hash with "4! + 3*2"), "log_2(x) = 3" as 2x = 3.
 */
export function unreadSign(text: string): string | undefined {
  const tokens = lex(text);
  const mathsAt = (i: number): boolean => {
    const token = tokens[i];
    return token !== undefined && isMaths(token);
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind === 'other' && !PROSE_SIGNS.test(token.text) && (mathsAt(i - 1) || mathsAt(i + 1))) return token.text;
  }
  return undefined;
}

/** "007" → "7", "3.50" → "3.5", "2,000" → "2000": one spelling per value as written (no rounding). */
export function canonicalNumber(literal: string): string {
  const plain = literal.replace(/,/g, '');
  const [whole = '0', fraction = ''] = plain.split('.');
  const int = whole.replace(/^0+(?=\d)/, '');
  const frac = fraction.replace(/0+$/, '');
  return frac === '' ? int : `${int}.${frac}`;
}

const isMaths = (t: RawToken): t is MathsToken => t.kind !== 'word' && t.kind !== 'other';

/**
 * The runs of maths in a text: maximal token runs of numbers, unknowns, operators, brackets and
 * functions, broken by prose words and punctuation. A lone letter counts only next to an operator, a
 * number or a bracket ("what is x when" is prose; "4x-9" is maths). A run is kept when it holds an
 * operator and a number, trimmed of dangling operators.
 */
export interface MathsRun {
  readonly tokens: readonly MathsToken[];
  /** Operators trimmed off its ends: maths cut short by a word ("by + 2 = 17"), a sign of a misreading. */
  readonly dangling: string;
}

export function mathsRuns(text: string): MathsRun[] {
  const tokens = lex(text);
  const runs: MathsRun[] = [];
  let current: MathsToken[] = [];
  const flush = (): void => {
    const trimmed = trim(current);
    if (trimmed.some((t) => t.kind === 'number') && trimmed.some((t) => t.kind === 'operator')) {
      const dangling = current.filter((t, i) => (i < current.indexOf(trimmed[0] ?? t) || i > current.lastIndexOf(trimmed[trimmed.length - 1] ?? t)) && t.kind === 'operator');
      runs.push({ tokens: trimmed, dangling: dangling.map((t) => t.text).join(' ') });
    }
    current = [];
  };
  tokens.forEach((token, i) => {
    if (!isMaths(token)) return flush();
    if (token.kind === 'unknown') {
      const before = tokens[i - 1];
      const after = tokens[i + 1];
      const bound = (t: RawToken | undefined): boolean => t !== undefined && isMaths(t) && t.kind !== 'unknown';
      const adjacentUnknown = (t: RawToken | undefined, u: RawToken | undefined): boolean => t?.kind === 'unknown' && bound(u);
      if (!bound(before) && !bound(after) && !adjacentUnknown(after, tokens[i + 2]) && !adjacentUnknown(before, tokens[i - 2])) return flush();
    }
    current.push(token);
  });
  flush();
  return runs;
}

function trim(run: readonly MathsToken[]): MathsToken[] {
  let start = 0;
  let end = run.length;
  while (start < end && (run[start]?.kind === 'close' || (run[start]?.kind === 'operator' && run[start]?.text !== '-'))) start += 1;
  while (end > start && (run[end - 1]?.kind === 'operator' || run[end - 1]?.kind === 'open' || run[end - 1]?.kind === 'function')) end -= 1;
  return run.slice(start, end);
}

const COMPARISONS = new Set(['=', '<', '>', '<=', '>=', '!=']);

export function isComparison(token: MathsToken): boolean {
  return token.kind === 'operator' && COMPARISONS.has(token.text);
}

/**
 * A run as mathjs source with every multiplication explicit: "4x" → "4*x", "2(x+1)" → "2*(x+1)",
 * "xy" → "x*y"; f, g and h before a bracket stay function applications.
 */
export function toSource(run: readonly MathsToken[]): string {
  let out = '';
  run.forEach((token, i) => {
    const previous = run[i - 1];
    if (previous !== undefined && implicitProduct(previous, token)) out += '*';
    out += token.text;
  });
  return out;
}

function implicitProduct(left: MathsToken, right: MathsToken): boolean {
  const leftOperand = left.kind === 'number' || left.kind === 'unknown' || left.kind === 'close';
  const rightOperand = right.kind === 'number' || right.kind === 'unknown' || right.kind === 'open' || right.kind === 'function';
  if (!leftOperand || !rightOperand) return false;
  if (left.kind === 'unknown' && right.kind === 'open' && FUNCTION_LETTERS.has(left.text)) return false;
  return true;
}
