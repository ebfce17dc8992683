import type { OcrBox, OcrSymbol, OcrWord } from '../ocr-pool.js';

/** Characters that make a word part of the maths: digits, operators, brackets, and what OCR turns them into. */
const MATHS_CHAR = /[0-9=+\-−–—×÷*/^<>()²³¹⁰⁴⁵⁶⁷⁸⁹]/;

export function isMathsWord(word: Pick<OcrWord, 'text'>): boolean {
  return MATHS_CHAR.test(word.text);
}

/** "problem", "exercise", "question", or what is left of one when a photo cuts off its first letters ("roblem"). */
const LABEL_WORD = /^['"‘’“”]?[a-z]{0,5}(?:blem|cise|tion)$/i;
const LABEL_NUMBER = /^['"‘’“”]?\d{1,3}[.):]$/;

/**
 * An item label's number ("12." before "Solve …", "Problem 12." on its own line, "'roblem 2." on a copy
 * cut at the left): it numbers the problem on its page and is no part of its maths (the maths stage drops
 * it too), so how surely it was read says nothing about the maths.
 */
export function isItemLabel(word: OcrWord, lineWords: readonly OcrWord[]): boolean {
  if (!LABEL_NUMBER.test(word.text)) return false;
  const at = lineWords.indexOf(word);
  const before = lineWords.slice(0, Math.max(0, at));
  const after = lineWords[at + 1];
  if (before.length === 0) return after !== undefined && /^[A-Za-z]/.test(after.text);
  return before.length === 1 && LABEL_WORD.test(before[0]?.text ?? '');
}

/**
 * Letters and digits tesseract confuses in maths (`5`/`s`, `1`/`l`/`I`, `0`/`o`, `2`/`z`, `8`/`B`, `9`/`g`)
 * and symbols it reads in place of a superscript (`'`, `"`; `?` before a digit). A maths word is suspicious when such a
 * letter sits before a digit ("S5y", "l2"), between digits ("1o0"), or a superscript stand-in touches a
 * digit ("2'%"): a coefficient is written before its unknown ("5y"), never after.
 */
const CONFUSABLE_BEFORE_DIGIT = /[sSlIoOzZbBgq|][0-9]/;
const CONFUSABLE_BETWEEN_DIGITS = /[0-9][sSlIoOzZbBgq|][0-9]/;
const SUPERSCRIPT_STAND_IN = /[0-9]['"’”]|['"’”?][0-9]/;

export function confusion(word: Pick<OcrWord, 'text'>): string | undefined {
  if (CONFUSABLE_BETWEEN_DIGITS.test(word.text)) return 'letter between digits';
  if (CONFUSABLE_BEFORE_DIGIT.test(word.text)) return 'letter that looks like a digit before a digit';
  if (SUPERSCRIPT_STAND_IN.test(word.text)) return 'quote glued to a digit (an exponent misread?)';
  return undefined;
}

const height = (b: OcrBox): number => b.y1 - b.y0;

/**
 * Whether a maths word holds raised, smaller characters (an exponent, or what OCR made of it) that its
 * text does not mark as one (no `^`, no superscript digit): "2¹⁰" read as "210" or "2'°" has lost its
 * exponent. Judged against the line's digits (lower-case letters are shorter than any digit, so they
 * are no reference): a raised glyph is under 0.8 of the tallest digit and ends a quarter of that height
 * above the digits' baseline.
 */
export function lostExponent(word: OcrWord, lineWords: readonly OcrWord[], degreeSigns: ReadonlySet<OcrSymbol> = new Set()): boolean {
  if (/[\^²³¹⁰⁴⁵⁶⁷⁸⁹]/.test(word.text)) return false;
  // A degree sign its ink shows to be one (`degreeSignsFromInk`) is raised and small by design.
  return raisedSymbols(word, lineWords).some((i) => {
    const raised = word.symbols[i];
    return raised === undefined || !degreeSigns.has(raised);
  });
}

/** Indexes of a maths word's raised glyphs (see `lostExponent`), judged against the digits of its line. */
export function raisedSymbols(word: OcrWord, lineWords: readonly OcrWord[]): number[] {
  if (!/[0-9]/.test(word.text)) return [];
  const digits = lineWords.flatMap((w) => w.symbols).filter((s) => /[0-9]/.test(s.text));
  if (digits.length === 0) return [];
  const tallest = Math.max(...digits.map((s) => height(s.bbox)));
  const baseline = Math.max(...digits.map((s) => s.bbox.y1));
  if (tallest <= 0) return [];
  const raised: number[] = [];
  word.symbols.forEach((s, i) => {
    if (/[0-9°'"*%?]/.test(s.text) && height(s.bbox) < 0.8 * tallest && s.bbox.y1 < baseline - 0.25 * tallest) raised.push(i);
  });
  return raised;
}

/**
 * A lone letter that OCR makes of a digit (`s` for 5, `l` for 1, `o` for 0, `z` for 2) standing as an
 * operand. `letters`: those the ink shows printed as letters (`lettersAtXHeight`), not doubted.
 */
export function digitReadAsLetter(normalisedReading: string, letters: ReadonlySet<string> = new Set()): string | undefined {
  // Also as a coefficient: "x - sy = 18" for "x − 5y = 18" (an operator, the letter, then one unknown).
  for (const m of normalisedReading.matchAll(/(?:^|[-+*/=^(]|\d)\s*([sloz])\s*(?=[-+*/=^)]|$)|[-+*/=^(]\s*([sloz])(?![a-z])|[-+*/=^(]\s*([sloz])(?=[a-z](?![a-z]))/g)) {
    if (!letters.has(m[1] ?? m[2] ?? m[3] ?? '')) return m[0];
  }
  return undefined;
}

/**
 * A symbol between a number and an operator in the normalised reading ("5 deg+8", "6?+7", "2%-1"):
 * tesseract's eng model reads a raised exponent as °, %, ? or a quote, which leaves maths that parses
 * without its powers, or no maths at all. Degrees, percentages and questions in prose ("45°, 60° and x°",
 * "25% off", "what is 7 × 12?") are not followed by an operator.
 */
export function symbolInsideMaths(normalisedReading: string): string | undefined {
  return (
    /\d\s*(?:deg|[%?'"])\s*[-+*/=^<>]\s*\d/.exec(normalisedReading) ??
    /[-+*/=^]\s*\d+\s*(?:deg|[%'"])/.exec(normalisedReading) ??
    // After an unknown or a bracket too: "x² − 15x" read "x? - 15x" would parse as x − 15x without its power.
    /(?:\b[a-z]|\))\s*[?'"]\s*[-+*/=<>]\s*[\d(a-z]/.exec(normalisedReading)
  )?.[0];
}

/**
 * Digits of one number printed at different sizes or heights ("7⁴" read as "74" when the raised 4 was
 * not recognised as raised): one size is how numbers are printed, so the difference is an exponent lost.
 */
export function unevenDigits(word: OcrWord): boolean {
  let run: OcrBox[] = [];
  const uneven = (): boolean => {
    if (run.length < 2) return false;
    const heights = run.map(height);
    const tallest = Math.max(...heights);
    const bottoms = run.map((b) => b.y1);
    return tallest > 1.3 * Math.min(...heights) || Math.max(...bottoms) - Math.min(...bottoms) > 0.25 * tallest;
  };
  for (const s of word.symbols) {
    if (/[0-9]/.test(s.text)) run.push(s.bbox);
    else {
      if (uneven()) return true;
      run = [];
    }
  }
  return uneven();
}

/**
 * An equation between two different bare numbers ("2=17"): true maths never says that, a reading that
 * lost the unknown's term does ("5y + 2 = 17" read as "hy « 2=17").
 */
export function falseNumericEquation(normalisedReading: string): string | undefined {
  for (const m of normalisedReading.matchAll(/(?<![\w.^*/+\-])(\d+(?:\.\d+)?)=(\d+(?:\.\d+)?)(?![\w.^*/+\-(])/g)) {
    if (Number(m[1]) !== Number(m[2])) return m[0];
  }
  return undefined;
}

/** Share of the narrower of two neighbouring digits' widths their boxes may share before one of them is suspect. */
const MAX_DIGIT_OVERLAP = 0.4;

/**
 * Two neighbouring digits whose boxes overlap by more than 40 % of the narrower one: printed digits
 * stand apart, so one of them was decoded from the other's ink. Tesseract's LSTM invents a digit this
 * way ("89" read as "809", the 0 boxed over the 8 and the 9; issue 16's handwriting-like sibling), and the
 * invented number parses and reads with a good confidence.
 */
export function crowdedDigits(word: OcrWord): boolean {
  for (let i = 1; i < word.symbols.length; i += 1) {
    const a = word.symbols[i - 1];
    const b = word.symbols[i];
    if (a === undefined || b === undefined || !/^[0-9]$/.test(a.text) || !/^[0-9]$/.test(b.text)) continue;
    const overlap = Math.min(a.bbox.x1, b.bbox.x1) - Math.max(a.bbox.x0, b.bbox.x0);
    const narrower = Math.min(a.bbox.x1 - a.bbox.x0, b.bbox.x1 - b.bbox.x0);
    if (narrower > 0 && overlap > MAX_DIGIT_OVERLAP * narrower) return true;
  }
  return false;
}

/**
 * A sign read as two: tesseract's eng model reads a monospaced "−" as "—-", which the normalisation makes
 * "--", a minus and a negative sign, so "8y − 25" would parse as 8y + 25. No maths is printed that way.
 */
export function doubledSign(word: Pick<OcrWord, 'text'>): boolean {
  return /[-—–−‐]{2,}/.test(word.text);
}

/**
 * A question mark glued to a letter and boxed raised off the letter's baseline: the eng model's reading
 * of a superscript ("m/s?," for "m/s²,"), not a question ending on a unit ("km/h?", whose mark stands on
 * the line). Raised: its bottom at least 0.3 of the letter's height above the letter's bottom.
 */
/** The doubt a raised question mark after a letter raises: the place of an exponent the pass did not read. */
export const RAISED_QUESTION_MARK = 'a raised question mark after a letter (an exponent misread?)';

export function raisedQuestionMark(word: OcrWord): boolean {
  return word.symbols.some((s, i) => {
    const letter = word.symbols[i - 1];
    if (s.text !== '?' || letter === undefined || !/^[A-Za-z]$/.test(letter.text)) return false;
    return s.bbox.y1 < letter.bbox.y1 - 0.3 * height(letter.bbox);
  });
}

/**
 * A times sign read as two letters ("6 × 4" read "6 xx 4" on a cropped copy): the maths signature would
 * take "xx" for a word and keep only the maths after it ("4 + 89"), a different problem.
 */
export function garbledTimes(normalisedReading: string): string | undefined {
  return /[\d)]\s*(?:xx+|x\s+x)\s*[(\d]/.exec(normalisedReading)?.[0];
}

/**
 * An equation chained with an inequality in one run ("x^2>-12x+22=0" for "x² − 12x + 22 = 0": a stray ">"
 * from the exponent's ink): no school maths relates three sides with "=" and "<" or ">" at once, while
 * "0<x<5" and "a<=b" are fine. The signature would take it for two relations, silently.
 */
export function mixedRelations(normalisedReading: string): string | undefined {
  return normalisedReading.split(/\s+/).find((run) => /(?<![<>!=])=(?!=)/.test(run) && /[<>](?!=)/.test(run));
}

/**
 * A prose word run into a relation ("from x=0 tox=5", the space before "x" lost): the maths stage takes
 * "tox" for a word and drops "=5" without a trace, so the upper limit is lost and "tox=5" and "tox=6" read
 * as one problem.
 */
export function wordGluedToRelation(normalisedReading: string): string | undefined {
  return /\b[a-z]{2,}\s*[=<>]\s*-?\d/.exec(normalisedReading)?.[0];
}
