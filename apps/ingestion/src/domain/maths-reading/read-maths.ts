import type { NormalisedImage } from '../image-normalisation.js';
import { extractMathsSignature, type MathsExtraction, type ReadToken } from '../maths-signature/index.js';
import type { OcrEngine, OcrResult, OcrSymbol, OcrWord } from '../ocr-pool.js';
import { prepareOcrInput } from '../ocr-input.js';
import { normaliseText } from '../text-normalisation.js';
import { type ExponentScale, recoverExponents, SECOND_EXPONENT_SCALE } from './exponent-recovery.js';
import { exponentsOverQuestionMarks, sameExponents, settledByRereads } from './exponent-tiebreak.js';
import { wordsOnBaseline } from './baseline-words.js';
import { withInkBoxes } from './ink-boxes.js';
import { degreeSignsFromInk } from './degree-signs.js';
import { divisionSignsFromInk } from './division-signs.js';
import { equalsSignsFromInk } from './equals-signs.js';
import { lettersAtXHeight } from './letter-heights.js';
import { dashesOverDots, minusSignsFromInk } from './minus-signs.js';
import { binarisedOcrInput } from './second-pass-input.js';
import { confusion, crowdedDigits, digitReadAsLetter, doubledSign, falseNumericEquation, garbledTimes, isItemLabel, isMathsWord, lostExponent, mixedRelations, RAISED_QUESTION_MARK, raisedQuestionMark, symbolInsideMaths, unevenDigits, wordGluedToRelation } from './token-checks.js';

export interface MathsReadingSettings {
  /** A maths word read below this confidence (0..1), or any suspicious word, triggers the second pass. */
  readonly secondPassBelow: number;
  /** The bar: a reading whose weakest maths word is below it (or that stays suspicious) is refused. */
  readonly refuseBelow: number;
}

export const DEFAULT_MATHS_READING: MathsReadingSettings = { secondPassBelow: 0.85, refuseBelow: 0.6 };

/** One OCR pass, judged. */
export interface Reading {
  readonly ocr: OcrResult;
  readonly pass: 'first' | 'second';
  /** The maths words with their confidences 0..1: what the maths signature records. */
  readonly tokens: readonly ReadToken[];
  /** Why the reading is not to be trusted as it stands (confusions, lost exponents, maths that does not parse). */
  readonly doubts: readonly string[];
  readonly weakest: number;
  readonly extraction: MathsExtraction;
  /** Exponents re-read from raised glyphs: such a reading needs the other pass to agree. */
  readonly recoveredExponents: number;
}

export type MathsReadingOutcome =
  | {
      readonly status: 'read';
      readonly reading: Reading;
      readonly passes: 1 | 2;
      /** How sure the reading of the maths is, 0..1 (see `readMaths`). */
      readonly confidence: number;
    }
  | { readonly status: 'unreadable'; readonly reason: string; readonly passes: 1 | 2 };

const pct = (value: number): string => value.toFixed(2);

/**
 * Tesseract's word confidences are scores, not probabilities: correct maths words score 0.6–0.95. What
 * the bar buys is measured (bench/ingestion-retrieval/image-copies: 0 wrong maths among 266 readings
 * that passed it, 134 refused), so a passing reading's confidence is mapped from [bar, 1] onto
 * [0.9, 1]: at worst 0.9, about the 95 % bound on that precision.
 */
export function calibrated(score: number, settings: MathsReadingSettings): number {
  if (score < settings.refuseBelow) return score;
  return 0.9 + (0.1 * (score - settings.refuseBelow)) / Math.max(1e-9, 1 - settings.refuseBelow);
}

/** What the ink of the page showed about the reading's characters, beyond tesseract's boxes. */
export interface InkEvidence {
  /** Words whose ink shows every digit printed on the line (`wordsOnBaseline`): the size and height checks, which judge tesseract's boxes, do not doubt those. */
  readonly onBaseline?: ReadonlySet<OcrWord>;
  /** Characters whose ink is a degree sign's ring (`degreeSignsFromInk`): a unit, not an exponent. */
  readonly degreeSigns?: ReadonlySet<OcrSymbol>;
  /** Lone letters (s, o, z) whose every glyph the ink shows at x-height (`lettersAtXHeight`): letters, not digits misread. */
  readonly lettersAtXHeight?: ReadonlySet<string>;
  /** Words of dashes whose ink is a dot at mid-height (`dashesOverDots`): a "·" read as a minus. */
  readonly dashesOverDots?: ReadonlySet<OcrWord>;
}

export function judgeReading(ocr: OcrResult, pass: Reading['pass'], recoveredExponents = 0, ink: InkEvidence = {}): Reading {
  const onBaseline = ink.onBaseline ?? new Set<OcrWord>();
  const words = ocr.words ?? [];
  const lines = new Map<number, OcrWord[]>();
  for (const w of words) lines.set(w.line, [...(lines.get(w.line) ?? []), w]);
  const doubts: string[] = [];
  const tokens: ReadToken[] = [];
  for (const w of words.filter((word) => isMathsWord(word) && !isItemLabel(word, lines.get(word.line) ?? []))) {
    tokens.push({ text: w.text, confidence: Math.max(0, Math.min(1, w.confidence / 100)) });
    const confused = confusion(w);
    if (confused !== undefined) doubts.push(`"${w.text}": ${confused}`);
    if (onBaseline.has(w)) {
      // The ink shows no raised glyph under this word: the boxes' doubts below would be about the boxes.
    } else if (lostExponent(w, lines.get(w.line) ?? [], ink.degreeSigns)) doubts.push(`"${w.text}": raised digits read as plain digits (a lost exponent)`);
    else if (unevenDigits(w)) doubts.push(`"${w.text}": digits of one number at different sizes (a lost exponent?)`);
    if (ink.dashesOverDots?.has(w) === true) doubts.push(`"${w.text}": a dot read as a dash (a product read as a difference?)`);
    if (raisedQuestionMark(w)) doubts.push(`"${w.text}": ${RAISED_QUESTION_MARK}`);
    if (doubledSign(w)) doubts.push(`"${w.text}": one sign read as two (a minus read as a dash and a hyphen?)`);
    if (crowdedDigits(w)) doubts.push(`"${w.text}": two digits read from one place (a digit invented?)`);
  }
  const normalised = normaliseText(ocr.text);
  const stray = symbolInsideMaths(normalised);
  if (stray !== undefined) doubts.push(`"${stray}": a symbol between a number and an operator (an exponent misread?)`);
  const falsehood = falseNumericEquation(normalised);
  if (falsehood !== undefined) doubts.push(`"${falsehood}": an equation between two different numbers (a term lost?)`);
  const mixed = mixedRelations(normalised);
  if (mixed !== undefined) doubts.push(`"${mixed}": an equation chained with an inequality (an operator misread?)`);
  const glued = wordGluedToRelation(normalised);
  if (glued !== undefined) doubts.push(`"${glued}": a word run into a relation (a term lost?)`);
  const times = garbledTimes(normalised);
  if (times !== undefined) doubts.push(`"${times}": a times sign read as two letters`);
  const letter = digitReadAsLetter(normalised, ink.lettersAtXHeight);
  if (letter !== undefined) doubts.push(`"${letter.trim()}": a lone letter where a digit is expected (5/s, 1/l, 0/o)`);
  const extraction = extractMathsSignature(normalised, tokens);
  for (const run of extraction.unparsed) doubts.push(`"${run}": does not parse as maths`);
  for (const run of extraction.dangling) doubts.push(`operator ${run}: an operand was read as a word`);
  const weakest = tokens.length === 0 ? 1 : Math.min(...tokens.map((t) => t.confidence));
  return { ocr, pass, tokens, doubts, weakest, extraction, recoveredExponents };
}

function trusted(reading: Reading, settings: MathsReadingSettings): boolean {
  return reading.doubts.length === 0 && reading.weakest >= settings.refuseBelow;
}

/** Trusted readings first, then fewer doubts, then the surer weakest word. */
function better(a: Reading, b: Reading, settings: MathsReadingSettings): Reading {
  const ta = trusted(a, settings);
  const tb = trusted(b, settings);
  if (ta !== tb) return ta ? a : b;
  if (a.doubts.length !== b.doubts.length) return a.doubts.length < b.doubts.length ? a : b;
  return b.weakest > a.weakest ? b : a;
}

function refusal(reading: Reading, settings: MathsReadingSettings): string {
  const weak = reading.tokens.filter((t) => t.confidence < settings.refuseBelow).map((t) => `"${t.text}" ${pct(t.confidence)}`);
  const parts = [...reading.doubts, ...(weak.length === 0 ? [] : [`maths read below confidence ${pct(settings.refuseBelow)}: ${weak.join(', ')}`])];
  return `the maths in the image cannot be read reliably (${parts.join('; ')}); please send a sharper photo or type the problem`;
}

/**
 * OCR for maths you can trust (issue 16): read the page, re-reading raised glyphs alone as exponents
 * (`recoverExponents`; such a reading stands only if the second pass reads the same maths); when a maths word is read with low confidence
 * or looks confused (`5y` as `S5y`, an exponent as digits), read it again from a binarised, larger
 * rendition as one text block, and keep the reading that parses with no doubts and the surer weakest
 * word. A reading that stays doubtful, or whose weakest maths word is below the bar, is refused with
 * the reason: solving a different problem silently is worse than asking for a better photo. The
 * confidence is the weakest maths word's, or, when both passes read the same maths, the chance that
 * not both are wrong; calibrated (see `calibrated`).
 */
export async function readMaths(
  image: NormalisedImage,
  skewDegrees: number,
  ocr: Pick<OcrEngine, 'recognise'>,
  settings: MathsReadingSettings = DEFAULT_MATHS_READING,
): Promise<MathsReadingOutcome> {
  const firstInput = await prepareOcrInput(image, skewDegrees);
  const firstWords = await operatorsFromInk(firstInput, await ocr.recognise(firstInput));
  const first = await withExponents(firstInput, firstWords, 'first', ocr);
  if (first.tokens.length === 0 || (first.doubts.length === 0 && first.weakest >= settings.secondPassBelow && first.recoveredExponents === 0)) {
    return { status: 'read', reading: first, passes: 1, confidence: calibrated(first.weakest, settings) };
  }
  const secondInput = await binarisedOcrInput(image, skewDegrees);
  const secondWords = await operatorsFromInk(secondInput, await ocr.recognise(secondInput, { segmentation: 'block' }));
  const second = await withExponents(secondInput, secondWords, 'second', ocr);
  const chosen = better(first, second, settings);
  if (!trusted(chosen, settings)) return { status: 'unreadable', reason: refusal(chosen, settings), passes: 2 };
  const other = chosen === first ? second : first;
  // Agreement: the other pass, free of doubts, reads the same maths (however unsure its weakest word).
  const agree = other.doubts.length === 0 && other.extraction.signature?.hash !== undefined && other.extraction.signature.hash === chosen.extraction.signature?.hash;
  // Exponents recovered in a reading that stays doubtful are no evidence: the raised glyphs were judged
  // against symbol boxes tesseract got wrong (a word's box given to each of its glyphs), not a real exponent.
  const evidence = (r: Reading): number => (r.doubts.length === 0 ? r.recoveredExponents : 0);
  if (evidence(chosen) + evidence(other) > 0 && !agree && !sameExponents(chosen, other)) {
    // The passes read different exponents: both pages read again, their exponents cropped at another scale.
    const rereads = [await withExponents(firstInput, firstWords, 'first', ocr, SECOND_EXPONENT_SCALE), await withExponents(secondInput, secondWords, 'second', ocr, SECOND_EXPONENT_SCALE)];
    const settled = settledByRereads([first, second], rereads, settings) ?? exponentsOverQuestionMarks([first, second], rereads, settings);
    if (settled !== undefined) return { status: 'read', reading: settled, passes: 2, confidence: calibrated(settled.weakest, settings) };
    const readings = [first, second].map((r) => `${r.pass} pass "${normaliseText(r.ocr.text)}"`).join(', ');
    return { status: 'unreadable', reason: `the exponents in the image cannot be read reliably (the two readings differ: ${readings}); please send a sharper photo or type the problem`, passes: 2 };
  }
  // Two readings from different renditions and segmentations that agree on the maths are wrong together
  // far less often than either alone: their doubts combine as if independent.
  const confidence = agree ? 1 - (1 - chosen.weakest) * (1 - other.weakest) : chosen.weakest;
  return { status: 'read', reading: chosen, passes: 2, confidence: calibrated(confidence, settings) };
}

/** Division signs (which the eng model cannot read), then minus and equals signs read unsure, checked against their ink. */
async function operatorsFromInk(page: Buffer, read: OcrResult): Promise<OcrResult> {
  return equalsSignsFromInk(page, await minusSignsFromInk(page, await divisionSignsFromInk(page, read)));
}

/** One pass judged: exponents recovered from tesseract's boxes, degree signs told from exponents, then every remaining digit judged by its ink. */
async function withExponents(page: Buffer, read: OcrResult, pass: Reading['pass'], ocr: Pick<OcrEngine, 'recognise'>, scale?: ExponentScale): Promise<Reading> {
  const recovered = await recoverExponents(page, read, ocr, scale);
  const degrees = await degreeSignsFromInk(page, await withInkBoxes(page, recovered.ocr));
  const inked = degrees.ocr;
  return judgeReading(inked, pass, recovered.recovered, {
    onBaseline: await wordsOnBaseline(page, inked),
    degreeSigns: degrees.signs,
    lettersAtXHeight: await lettersAtXHeight(page, inked),
    dashesOverDots: await dashesOverDots(page, inked),
  });
}
