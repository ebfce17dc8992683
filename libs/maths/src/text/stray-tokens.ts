import { KNOWN_FUNCTIONS } from '../core/function-names.js';

/**
 * Words that may touch a number without being maths the parser drops: units ("5cm", "60km/h"),
 * ordinals ("2nd") and constants. Any other letter run of two or more letters that touches the maths
 * is not read as prose: the problem is refused naming it ("sy-4=2y+11" is an OCR misreading of "5y").
 */
const UNITS = new Set([
  'mm', 'cm', 'km', 'kg', 'mg', 'ml', 'cl', 'kl', 'hr', 'hrs', 'min', 'mins', 'sec', 'secs', 'mph', 'kmh', 'kph', 'ft', 'in', 'yd', 'lb', 'lbs', 'oz',
  'st', 'nd', 'rd', 'th', 'pi', 'deg', 'rad', 'am', 'pm', 'cm2', 'cm3', 'm2', 'm3',
  // Units of three or more letters from science problems ("58.44 g/mol", "50 kHz"): two-letter runs
  // stay out, since a run like "ms" may be a product of two unknowns.
  'mol', 'mmol', 'kwh', 'khz', 'mhz', 'kpa', 'cal', 'kcal', 'gal', 'yrs', 'wks', 'days', 'ohm', 'ohms',
]);
/** Connectives and instruction words: ingestion's normalised text drops spaces around operators ("solve-2x+5=1"). */
const CONNECTIVES = new Set(['and', 'or', 'solve', 'evaluate', 'simplify', 'calculate', 'compute', 'find', 'expand', 'factor', 'factorise', 'factorize', 'is', 'if', 'when', 'where', 'given', 'then', 'of', 'that', 'let', 'so', 'are', 'what', 'out', 'show', 'verify', 'check', 'differentiate', 'integrate']);

export type Lexeme = { readonly kind: 'number' | 'word' | 'operator' | 'relation' | 'open' | 'close' | 'space' | 'other'; readonly text: string };

const LEXEME = /(\d+(?:\.\d+)?)|([A-Za-z]+)|(<=|>=|!=|[=<>])|([-+*/^])|([([])|([)\]])|(\s+)|([\s\S])/g;

export function lex(text: string): Lexeme[] {
  const out: Lexeme[] = [];
  for (const m of text.matchAll(LEXEME)) {
    const [whole, number, word, relation, operator, open, close, space] = m;
    const kind = number !== undefined ? 'number' : word !== undefined ? 'word' : relation !== undefined ? 'relation' : operator !== undefined ? 'operator' : open !== undefined ? 'open' : close !== undefined ? 'close' : space !== undefined ? 'space' : 'other';
    out.push({ kind, text: whole });
  }
  return out;
}

/** A number written as a word ("seven times six" is maths as much as "7 times 6"). */
export const NUMBER_WORD = String.raw`(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million)`;
const NUMBER_WORD_TOKEN = new RegExp(`^${NUMBER_WORD}$`, 'i');
const isOperand = (l: Lexeme | undefined): boolean => l !== undefined && (l.kind === 'number' || l.kind === 'close' || (l.kind === 'word' && l.text.length === 1));
const isBinary = (l: Lexeme | undefined): boolean => l !== undefined && (l.kind === 'relation' || (l.kind === 'operator' && l.text !== '-'));
export const readable = (word: string): boolean => {
  const lower = word.toLowerCase();
  // "dy/dx", "d/dt", "dx": the notation of calculus.
  return word.length === 1 || /^d[a-z]$/.test(lower) || KNOWN_FUNCTIONS.has(lower) || UNITS.has(lower) || CONNECTIVES.has(lower) || lower === 'log10' || lower === 'log2';
};

/**
 * The first letter run inside or touching the maths of a (normalised) problem that the maths cannot
 * account for, or undefined. A run touches the maths when a number, an operator or a relation sits
 * against it with no space ("67lo", "sy-4", "=abc"; a hyphen between words is prose: "right-angled"),
 * or when it stands between an operand and a binary operator or relation ("8n qz + 4", "= lo 12").
 */
export function strayToken(normalised: string): string | undefined {
  const lexemes = lex(normalised);
  for (let i = 0; i < lexemes.length; i++) {
    const token = lexemes[i]!;
    if (token.kind === 'other' && UNREAD_SIGN.test(token.text) && inTheMaths(lexemes, i)) return token.text;
    // A sign other than ASCII punctuation between two digits ("7٫5", the Arabic decimal separator; "7‚5", a
    // low quotation mark read for a comma) ended the maths there: "2x + 1 = 7٫5" was solved as "2x + 1 = 7".
    if (token.kind === 'other' && /[^\x00-\x7f]/.test(token.text) && lexemes[i - 1]?.kind === 'number' && lexemes[i + 1]?.kind === 'number') return token.text;
    if (token.kind !== 'word') continue;
    // "pi" is read as prose (as "in terms of pi" is), so in the maths ("A = pi r^2", "Evaluate pi r^2") it cut
    // the maths to "r^2": refused there by name.
    if (token.text.toLowerCase() === 'pi' && (inTheMaths(lexemes, i) || isOperand(neighbour(lexemes, i, -1)) || isOperand(neighbour(lexemes, i, 1)))) return token.text;
    if (readable(token.text)) continue;
    // "log10(…)": a function name followed by its digits.
    const before = lexemes[i - 1];
    const after = lexemes[i + 1];
    const hyphenBefore = before?.kind === 'operator' && before.text === '-' && lexemes[i - 2]?.kind === 'word';
    const hyphenAfter = after?.kind === 'operator' && after.text === '-' && lexemes[i + 2]?.kind === 'word';
    const touchesBefore = before !== undefined && ['number', 'operator', 'relation'].includes(before.kind) && !hyphenBefore && !(before.kind === 'number' && /^(st|nd|rd|th)$/i.test(token.text));
    const touchesAfter = after !== undefined && ['number', 'operator', 'relation'].includes(after.kind) && !hyphenAfter;
    if (touchesBefore || touchesAfter) return token.text;
    const previous = neighbour(lexemes, i, -1);
    const next = neighbour(lexemes, i, 1);
    if ((isOperand(previous) && isBinary(next)) || (isBinary(previous) && isOperand(next))) return token.text;
    // A number word the reader left as a word before a sign and an operand ("Part one - x + 2 = 5"):
    // dropped, the maths would lose its first operand.
    if (NUMBER_WORD_TOKEN.test(token.text) && next !== undefined && (next.kind === 'operator' || next.kind === 'relation') && isOperand(neighbour(lexemes, lexemes.indexOf(next, i + 1), 1))) return token.text;
  }
  return undefined;
}

/**
 * A letter the maths does not read as an unknown (a Greek "α", "θ") or a maths sign it does not read ("±",
 * "∓", "∑"): next to the maths, the parser would cut the maths there and keep only a part ("11α - 37 < 18"
 * signed as "-37 < 18"), so it is refused by name. Prose punctuation, currency and "°" stay prose.
 */
const UNREAD_SIGN = /^[\p{L}\p{Sm}]$/u;

/** Whether the lexeme at `i` sits in the maths: a number, an operator, a relation or a bracket is its nearest neighbour on either side. */
function inTheMaths(lexemes: readonly Lexeme[], i: number): boolean {
  const maths = (l: Lexeme | undefined): boolean => l !== undefined && ['number', 'operator', 'relation', 'open', 'close'].includes(l.kind);
  return maths(neighbour(lexemes, i, -1)) || maths(neighbour(lexemes, i, 1)) || isOperand(neighbour(lexemes, i, -1)) || isOperand(neighbour(lexemes, i, 1));
}

export function neighbour(lexemes: readonly Lexeme[], from: number, step: 1 | -1): Lexeme | undefined {
  for (let i = from + step; i >= 0 && i < lexemes.length; i += step) if (lexemes[i]!.kind !== 'space') return lexemes[i];
  return undefined;
}
