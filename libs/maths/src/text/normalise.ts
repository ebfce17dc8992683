import { spend } from '../core/budget.js';
import { lex, type Lexeme, neighbour, NUMBER_WORD, readable } from './stray-tokens.js';
import { numberWordValue } from './number-words.js';

/**
 * Problem text with its mathematics in mathjs syntax: Unicode operators and superscripts, operator
 * words ("times", "squared", "to the power of") and notation mathjs does not read (√, π, ln, log_2)
 * rewritten. Prose words stay: solvers read them.
 */
export function normaliseMaths(text: string): string {
  spend(NORMALISING_STEPS_PER_CHARACTER * text.length, 'rewriting the notation of the text');
  return (
    foldLookalikes(
      decimalComma(text)
        // Superscript powers before NFKC, which would fold x² into the name "x2".
        .replace(/[⁰¹²³⁴⁵⁶⁷⁸⁹]+/g, (digits) => `^${[...digits].map((d) => SUPERSCRIPTS.indexOf(d)).join('')}`)
        .normalize('NFKC'),
    )
    .replace(/[×·∙⋅]/g, '*')
    // The times sign typed (or read) as a letter x, read as the maths signature reads it: between two
    // numbers ("3 x 4", "17x9"), or spaced between operands one of them bracketed ("(3/4) x (5/6)").
    // "2 + 3 x 4" was 12x + 2 to the engine and 14 to the signature.
    .replace(/(\d)\s*[xX]\s*(?=\d)/g, '$1 * ')
    .replace(/([\d)])\s+[xX]\s+(?=\()|(\))\s+[xX]\s+(?=\d)/g, (_m, left: string | undefined, right: string | undefined) => `${left ?? right ?? ''} * `)
    .replace(/÷/g, '/')
    // Every dash ingestion folds to a minus (text-normalisation.ts), so both read "5‐x" (a U+2010 hyphen)
    // as 5 − x: left as it was, the engine cut "‐x" off and answered "x - 2 = 5‐x" as x - 2 = 5.
    .replace(/[−‐‑‒–—―⁃﹣－]/g, '-')
    .replace(/≤|=</g, '<=')
    .replace(/≥|=>/g, '>=')
    .replace(/π/g, 'pi')
    // |a| as abs(a); bars that do not pair up stay (and the maths around them is not read). After a letter,
    // apart from it: "x|x| < 4" was "xabs(x) < 4", whose letter run was lost, and answered as x < 4.
    .replace(/([A-Za-z]?)\|([^|]+)\|/g, (_m, letter: string, inside: string) => `${letter === '' ? '' : `${letter} `}abs(${inside})`)
    // Ingestion writes √2 as "sqrt2" and ∞ as "inf".
    .replace(/\bsqrt(\d+(?:\.\d+)?)\b/g, 'sqrt($1)')
    .replace(/√\s*\(/g, 'sqrt(')
    .replace(/√\s*([0-9a-z.]+)/gi, 'sqrt($1)')
    // log_b first (kept apart by a marker), then a bare "log": the common logarithm in school maths
    // (mathjs' log is natural, like "ln").
    .replace(/\blog_?\s*\{?(\d+)\}?\s*\(([^()]+)\)/gi, 'LOG_BASE($2, $1)')
    .replace(/\blog_?\s*\{?(\d+)\}?\s+(\d+|[a-z])\b/gi, 'LOG_BASE($2, $1)')
    .replace(/\blog\s*\(/gi, 'log10(')
    .replace(/\blog\s+(\d+(?:\.\d+)?|[a-z])\b/gi, 'log10($1)')
    .replace(/LOG_BASE\(/g, 'log(')
    .replace(/\bln\s*\(/gi, 'log(')
    .replace(/\bln\s+([a-z0-9]+)/gi, 'log($1)')
    .replace(/\bsquared\b/gi, '^2')
    .replace(/\bcubed\b/gi, '^3')
    .replace(/\bto the power of\b/gi, '^')
    .replace(/\bis equal to\b|\bequals\b/gi, '=')
    // An operator word is a sign only between two operands ("3 times 4", "2 times x = 8"): in prose
    // ("three times a day", "tossed 3 times", "plus a bonus") it stays a word, so no reader makes maths of it.
    .replace(BETWEEN_OPERANDS(/multiplied by|times/), '*')
    .replace(BETWEEN_OPERANDS(/divided by/), '/')
    .replace(BETWEEN_OPERANDS(/plus/), '+')
    .replace(BETWEEN_OPERANDS(/minus/), '-')
    .replace(/\*\*/g, '^')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[\s\S]*$/, formulaProducts)
  );
}

/**
 * A word standing as a whole operand of a formula, between a sign and a sign (or the formula's end), is
 * read, never dropped: a number word is its number ("x + 2 = ten" is x + 2 = 10, where the key and the
 * solve had read x + 2), and a run of two to four distinct letters is the product of its letters ("v = u +
 * at" is u + a·t, "E = mc^2" is m·c^2). A word beside a number, a word or punctuation ("sy-4" after
 * "fory:", "5x qz + 4") is not in operand place and stays for the stray-token check to refuse; a word
 * hyphenated to another ("x-ray", "u-at", "twenty-one") is a word's; operators said in words, units,
 * functions, connectives and a run that repeats a letter ("ss", "xx": a misreading as likely as a
 * product) are never read as a product.
 */
function formulaProducts(text: string): string {
  const lexemes = joinHyphenatedNumbers(lex(text));
  const sign = (l: Lexeme | undefined): boolean => l !== undefined && (l.kind === 'operator' || l.kind === 'relation' || l.kind === 'open');
  const operand = (l: Lexeme | undefined): boolean =>
    l !== undefined && (l.kind === 'number' || l.kind === 'open' || (l.kind === 'word' && (l.text.length === 1 || numberWordValue(l.text) !== undefined)));
  /**
   * A number word opening the maths ("twenty-one - x = 5", "Solve ten - x = 5"): at the text's start or
   * after an instruction word or punctuation, before an operator or relation and an operand. Dropped,
   * "- x = 5" was answered x = −5. After other prose ("Part one - x = 5") it is left for the stray-token
   * check to refuse.
   */
  const opensTheMaths = (i: number): boolean => {
    const previous = neighbour(lexemes, i, -1);
    const opens = previous === undefined || (previous.kind === 'other' && /^[:;,.?!]$/.test(previous.text)) || (previous.kind === 'word' && CONNECTIVE_BEFORE_MATHS.test(previous.text));
    const next = neighbour(lexemes, i, 1);
    if (!opens || next === undefined || !(next.kind === 'operator' || next.kind === 'relation')) return false;
    // Unspaced ("ten-x=5", as ingestion writes it), a minus is one only before a lone letter or a number
    // that ends there: "ten-xy" or "one-two" are words hyphenated.
    if (next.text === '-' && lexemes[i + 1] === next) {
      const after = lexemes[i + 2];
      const lone = after !== undefined && (after.kind === 'number' || (after.kind === 'word' && after.text.length === 1));
      if (!lone || lexemes[i + 3]?.kind === 'word' || lexemes[i + 3]?.kind === 'number') return false;
    }
    return operand(neighbour(lexemes, lexemes.indexOf(next, i + 1), 1));
  };
  const inOperandPlace = (i: number): boolean => {
    const previous = neighbour(lexemes, i, -1);
    if (!sign(previous)) return false;
    // "x-ray", "and/or": a "-" or "/" with a letter against it on both sides joins words.
    if ((previous!.text === '-' || previous!.text === '/') && lexemes[i - 1] === previous && lexemes[i - 2]?.kind === 'word') return false;
    const next = lexemes[i + 1]?.kind === 'space' ? lexemes[i + 2] : lexemes[i + 1];
    const afterNext = lexemes[lexemes.indexOf(next!, i + 1) + 1];
    // The formula ends here: the text's end, or punctuation then a space or the end ("v = u + at. Find t").
    const ends = next === undefined || (next.kind === 'other' && /^[.,;:?!]$/.test(next.text) && (afterNext === undefined || afterNext.kind === 'space'));
    const hyphenAfter = next?.text === '-' && lexemes[i + 1] === next && afterNext?.kind === 'word';
    return ends || (next.kind === 'operator' && !hyphenAfter) || next.kind === 'relation' || next.kind === 'close';
  };
  return lexemes
    .map((token, i) => {
      if (token.kind !== 'word' || token.text.length < 2) return token.text;
      const number = numberWordValue(token.text);
      if (number !== undefined) return inOperandPlace(i) || opensTheMaths(i) ? String(number) : token.text;
      const distinctLetters = new Set(token.text.toLowerCase()).size === token.text.length;
      if (token.text.length > 4 || !distinctLetters || readable(token.text) || SAID_IN_WORDS.test(token.text)) return token.text;
      return inOperandPlace(i) ? [...token.text].join('*') : token.text;
    })
    .join('');
}

/** Instruction words after which the maths begins ("Solve ten - x = 5"). */
const CONNECTIVE_BEFORE_MATHS = /^(?:solve|evaluate|simplify|calculate|compute|find|if|when|given|where|then|so|and|is|what)$/i;

/**
 * "twenty-one" lexed as word, "-", word is one word when it says one number; not when another word is
 * hyphenated after it ("twenty-one-two"); "twenty-one-x" is 21 − x.
 */
function joinHyphenatedNumbers(lexemes: readonly Lexeme[]): Lexeme[] {
  const out: Lexeme[] = [];
  for (let i = 0; i < lexemes.length; i++) {
    const [a, hyphen, b] = [lexemes[i]!, lexemes[i + 1], lexemes[i + 2]];
    if (a.kind === 'word' && hyphen?.text === '-' && b?.kind === 'word' && numberWordValue(`${a.text}-${b.text}`) !== undefined && !(lexemes[i + 3]?.text === '-' && lexemes[i + 4]?.kind === 'word' && lexemes[i + 4]!.text.length > 1)) {
      out.push({ kind: 'word', text: `${a.text}-${b.text}` });
      i += 2;
    } else out.push(a);
  }
  return out;
}

const SUPERSCRIPTS = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/** The ~40 rewrites above, measured ~4–9 steps a character (0.4–0.9 µs) together. */
const NORMALISING_STEPS_PER_CHARACTER = 5;


/** Words a letter run may be that are not a product of unknowns: numbers and operators said in words. */
const SAID_IN_WORDS = new RegExp(String.raw`^(?:${NUMBER_WORD}|plus|minus|times|over|by|half|add|sum|less|more|than|into|per|make|makes|twice)$`, 'i');

/**
 * `word` standing between two operands: after a digit, a number word, a closing bracket or a lone
 * letter, and before a number (in digits or words), an opening bracket, a function applied or a lone
 * letter that no word follows ("a day").
 */
function BETWEEN_OPERANDS(word: RegExp): RegExp {
  const left = String.raw`(?<=(?:\d|\)|(?<![a-z])[a-z]|\b${NUMBER_WORD})\s*)`;
  const right = String.raw`(?=\s*(?:-?\s*\d|${NUMBER_WORD}\b|\(|(?:sqrt|log10|log|ln|sin|cos|tan|abs|exp)\s*\(|pi\b|[a-z](?![a-z])(?!\s+(?!(?:times|multiplied|divided|plus|minus)\b)[a-z]{2,})))`;
  return new RegExp(String.raw`${left}\b(?:${word.source})\b${right}`, 'gi');
}

/**
 * A Cyrillic or Greek letter that looks like a Latin one, standing alone among Latin text ("2х + 1",
 * Cyrillic х), is the Latin letter; inside a word of its own script it stays (and is not read as maths).
 * Every reader of maths (the engine, the maths signature) folds them alike, so none reads around them.
 */
export function foldLookalikes(text: string): string {
  return text.replace(/(?<![\u0370-\u03ff\u0400-\u04ff])[аеорсухкАВЕКМНОРСТХУοΑΒΕΗΚΜΝΟΡΤΧΥ](?![\u0370-\u03ff\u0400-\u04ff])/g, (letter) => CONFUSABLES[letter] ?? letter);
}

/**
 * A decimal comma ("2,5x + 1 = 6") read as a decimal point, only where nothing else could be meant:
 * the one digit-comma-digit of the text, not three digits after the comma (a thousands separator),
 * not inside brackets (a point such as (3,4)). Anything else stays as written: lists keep their
 * commas, and a solver that cannot tell a list from decimals refuses.
 */
function decimalComma(text: string): string {
  // Thousands separators first ("1,250" is 1250), where the number is not part of a comma list.
  const grouped = text.replace(/(?<![\d,.]|\d,)\d{1,3}(?:,\d{3})+(?![\d,.]|,\d)/g, (n) => n.replace(/,/g, ''));
  if ((grouped.match(/(?<=\d),(?=\d)/g) ?? []).length !== 1) return grouped;
  return grouped.replace(/(?<![\d.(]\s*|[\d.])(\d+),(\d{1,2}|\d{4,})(?![\d,]|\s*\))/, '$1.$2');
}
const CONFUSABLES: Readonly<Record<string, string>> = {
  а: 'a', е: 'e', о: 'o', р: 'p', с: 'c', у: 'y', х: 'x', к: 'k',
  А: 'A', В: 'B', Е: 'E', К: 'K', М: 'M', Н: 'H', О: 'O', Р: 'P', С: 'C', Т: 'T', Х: 'X', У: 'Y',
  ο: 'o', Α: 'A', Β: 'B', Ε: 'E', Η: 'H', Κ: 'K', Μ: 'M', Ν: 'N', Ο: 'O', Ρ: 'P', Τ: 'T', Χ: 'X', Υ: 'Y',
};

/** Every number written in the text (digits), for templates that must use each one. */
export function numbersIn(text: string): number[] {
  return [...text.replace(/(\d),(\d{3})\b/g, '$1$2').matchAll(/(?<![A-Za-z_])\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));
}
