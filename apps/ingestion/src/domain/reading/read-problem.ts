import type { OcrChar, OcrReader, OcrReading } from '@openpaw/providers/ocr';
import sharp from 'sharp';
import type { NormalisedImage } from '../image-normalisation.js';
import { extractMathsSignature, type ReadToken } from '../maths-signature/index.js';
import { normaliseText } from '../text-normalisation.js';
import { lineGeometry } from './line-geometry.js';

export interface ReadingSettings {
  /** A digit, operator or letter of the maths read below this probability (0..1) is doubted, and the reading refused. */
  readonly minCharConfidence: number;
  /** Bound on one read; a hung inference or provider call fails the read. */
  readonly timeoutMs: number;
  /** Narrower pages are enlarged to this width first: small print reads better larger. */
  readonly minWidth: number;
}

export const DEFAULT_READING: ReadingSettings = { minCharConfidence: 0.9, timeoutMs: 10_000, minWidth: 800 };

export interface ProblemReading {
  /** The text as read, exponents written with "^", lines joined by newlines. */
  readonly text: string;
  /** The maths words with their confidences (the maths signature's reading). */
  readonly tokens: readonly ReadToken[];
  /** The weakest maths character's probability. */
  readonly confidence: number;
  readonly reader: string;
}

export type ProblemReadingOutcome = { readonly status: 'read'; readonly reading: ProblemReading } | { readonly status: 'unreadable'; readonly reason: string };

/** Scripts the maths reading is not for: their text is refused, never misread as Latin letters. */
const FOREIGN_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Devanagari}\p{Script=Thai}]/u;
/** Greek letters a maths problem uses as symbols. */
const MATHS_GREEK = /[πθαβγδλμσφωΔΣΩ]/u;
/** Item labels ("1.", "2)", "(b)") opening a line: two of them make a worksheet, not a problem. */
const ITEM_LABEL = /^\s*(?:\(?\d{1,2}[.)]|\(?[a-h]\))\s/;
/** Characters that carry the maths: digits, operators, relations, brackets. */
const MATHS_CHAR = /[0-9+\-−×÷*/=<>≤≥^()√²³]/;

/** The page the reader reads: levelled by the measured skew, at least `minWidth` wide, PNG. */
async function readerInput(image: NormalisedImage, skewDegrees: number, settings: ReadingSettings): Promise<Buffer> {
  let pipeline = sharp(image.rgb, { raw: { width: image.width, height: image.height, channels: 3 } });
  if (Math.abs(skewDegrees) >= 0.5) pipeline = pipeline.rotate(-skewDegrees, { background: { r: 255, g: 255, b: 255 } });
  const levelled = await pipeline.png().toBuffer({ resolveWithObject: true });
  if (levelled.info.width >= settings.minWidth) return levelled.data;
  return sharp(levelled.data).resize({ width: settings.minWidth, kernel: 'lanczos3' }).png().toBuffer();
}

/**
 * Reads a problem from an image through the OCR port and says whether the reading can be trusted:
 * exponents placed from the characters' boxes, structure a line cannot carry refused, characters outside
 * the reader's alphabet or read unsure refused, pages of several problems and foreign text refused, and
 * maths that does not parse refused. Each refusal names what could not be read.
 */
export async function readProblem(image: NormalisedImage, skewDegrees: number, reader: OcrReader, settings: ReadingSettings = DEFAULT_READING): Promise<ProblemReadingOutcome> {
  const reading = await reader.read(await readerInput(image, skewDegrees, settings), { timeoutMs: settings.timeoutMs });
  return judgeReading(reading, settings);
}

export function judgeReading(reading: OcrReading, settings: ReadingSettings = DEFAULT_READING): ProblemReadingOutcome {
  if (!reading.lines.some((l) => l.text !== '')) return { status: 'unreadable', reason: 'no text was found in the image; please send a sharper photo or type the problem' };
  const raw = reading.lines.map((l) => l.text).join('\n');
  const foreign = [...raw].find((c) => FOREIGN_SCRIPT.test(c) && !MATHS_GREEK.test(c));
  if (foreign !== undefined) return { status: 'unreadable', reason: `the image holds text in another script ("${foreign}"); only English problems are read — please type the problem` };
  if (reading.lines.filter((l) => ITEM_LABEL.test(l.text)).length >= 2) {
    return { status: 'unreadable', reason: `the image holds several problems (${reading.lines.filter((l) => ITEM_LABEL.test(l.text)).length} numbered items); please crop it to the one you want solved` };
  }
  const doubts: string[] = [];
  const lost = reading.lines.filter((l) => l.text === '').length;
  if (lost > 0) doubts.push(`${lost} text region${lost === 1 ? '' : 's'} read as nothing (a lost term?)`);
  const lines = reading.lines.filter((l) => l.text !== '').map(lineGeometry);
  for (const line of lines) doubts.push(...line.doubts);
  const chars: OcrChar[] = lines.flatMap((l, i) => (i === 0 ? l.chars : [{ text: '\n', confidence: 1 }, ...l.chars]));
  const resolved = resolveDoubts(chars, settings);
  if (resolved.doubt !== undefined) doubts.push(resolved.doubt);
  if (doubts.length > 0 || resolved.chars === undefined) return refusal(doubts);
  const text = resolved.chars.map((c) => c.text).join('');
  const tokens = mathsTokens(resolved.chars);
  const extraction = extractMathsSignature(normaliseText(text), tokens);
  for (const run of extraction.unparsed) doubts.push(`"${run}" does not parse as maths`);
  for (const run of extraction.dangling) doubts.push(`operator ${run}: an operand was read as a word`);
  const normalised = normaliseText(text);
  // A root's radicand is what its bar spans, which a line reader does not see: "√36+31" may be √(36+31).
  if (/√|v\/|sqrt/i.test(text)) doubts.push('a root sign: how far its bar reaches cannot be read from one line');
  for (const [pattern, what] of MISREAD_SHAPES) {
    const found = pattern.exec(normalised);
    if (found !== null) doubts.push(`"${found[0]}": ${what}`);
  }
  if (extraction.signature === undefined && PROMPT_WITHOUT_MATHS.test(normaliseText(text))) doubts.push(`"${text.trim()}" asks for maths the reading does not hold (a line lost?)`);
  if (doubts.length > 0) return refusal(doubts);
  const confidence = tokens.length === 0 ? 1 : Math.min(...tokens.map((t) => t.confidence));
  return { status: 'read', reading: { text, tokens, confidence, reader: reading.reader } };
}

const refusal = (doubts: readonly string[]): ProblemReadingOutcome => ({
  status: 'unreadable',
  reason: `the maths in the image cannot be read reliably (${doubts.join('; ')}); please send a sharper photo, crop to the problem, or type it`,
});

/**
 * Shapes printed maths does not take but misreadings do (the signature parses them): an operator run
 * into another ("5×+34" where the x was read as ×), two numbers side by side ("104 4", a digit read
 * twice), a lone letter repeating the end of the word before it ("evaluate e", read twice at a box join).
 */
const MISREAD_SHAPES: readonly (readonly [RegExp, string])[] = [
  [/[*×÷/^][+*×÷/=<>≤≥^]|[+-][+*×÷/=<>≤≥^]/, 'two operators in a row (a term lost?)'],
  [/\d \d/, 'two numbers side by side (a digit read twice, or an operator lost?)'],
  [/(\p{L}) \1(?!\p{L})/u, 'a letter read twice'],
];

/** An instruction with nothing after it to act on: what is left when the maths line was not read. */
const PROMPT_WITHOUT_MATHS = /(?:^|\s)(?:solve|simplify|evaluate|calculate|work out|compute|find|factorise|factorize|expand|add the fractions)(?:\s+for\s+[a-z])?\s*:?\s*$/;

/** A doubted character's readings must hold at least this much of its probability, or what it is cannot be said. */
const COVERAGE = 0.95;
/** A reading of a character under this share of its likeliest reading is not weighed (it still counts towards coverage). */
const PLAUSIBLE = 0.125;
/** At most this many readings of a line are weighed; more doubts than that and the reading is refused. */
const MAX_READINGS = 64;

/**
 * The reader's doubts weighed against the maths (issue 25). A maths character read below the bar is not
 * refused outright: its readings (the reader's own alternatives, '' for none) are each tried, and the
 * reading stands when every one of them that parses is the same maths (or no maths) with the same digits
 * and operators. Spaces and "2x +" against "2x+" thus never refuse a reading; "12 34" against "1234", or a
 * minus that may be lost, do. Doubts whose readings do not cover the character's probability refuse.
 */
function resolveDoubts(chars: readonly OcrChar[], settings: ReadingSettings): { chars?: OcrChar[]; doubt?: string } {
  const doubted = chars.map((c, i) => (c.confidence < settings.minCharConfidence && inMaths(chars, i) ? i : -1)).filter((i) => i >= 0);
  const sure = chars.map((c, i) => (doubted.includes(i) ? c : c.text === '' ? undefined : c));
  if (doubted.length === 0) return { chars: sure.filter((c): c is OcrChar => c !== undefined) };
  const named = doubted.map((i) => `"${chars[i]!.text === '' ? chars[i]!.alternatives?.[0]?.text ?? '' : chars[i]!.text}" ${(chars[i]!.text === '' ? chars[i]!.alternatives?.[0]?.confidence ?? 0 : chars[i]!.confidence).toFixed(2)}`);
  const weighed = doubted.map((i) => [{ text: chars[i]!.text, confidence: chars[i]!.confidence }, ...(chars[i]!.alternatives ?? [])]);
  const uncovered = doubted.filter((_, k) => weighed[k]!.reduce((sum, o) => sum + o.confidence, 0) < COVERAGE);
  const options = weighed.map((o, k) => {
    const top = Math.max(...o.map((x) => x.confidence));
    // A character with ink of its own is some character: "none" is no reading of it.
    return o.filter((x) => x.confidence >= PLAUSIBLE * top && !(x.text === '' && chars[doubted[k]!]!.ownInk === true));
  });
  if (uncovered.length > 0) return { doubt: `read unsure: ${named.join(', ')}` };
  if (options.reduce((n, o) => n * o.length, 1) > MAX_READINGS) return { doubt: `read unsure: ${named.join(', ')} (too many ways to read it)` };
  let readings: { picks: number[]; probability: number }[] = [{ picks: [], probability: 1 }];
  for (const o of options) readings = readings.flatMap((r) => o.map((_, k) => ({ picks: [...r.picks, k], probability: r.probability * o[k]!.confidence })));
  const maths = new Map<string, { chars: OcrChar[]; probability: number }>();
  for (const r of readings) {
    const candidate = sure.map((c, i) => {
      const k = doubted.indexOf(i);
      return k < 0 ? c : { ...c, text: options[k]![r.picks[k]!]!.text, confidence: options[k]![r.picks[k]!]!.confidence };
    });
    const picked = candidate.filter((c): c is OcrChar => c !== undefined && c.text !== '');
    const text = normaliseText(picked.map((c) => c.text).join(''));
    const extraction = extractMathsSignature(text);
    // A word problem has no signature; its reading still stands or falls by its digits and operators.
    if (extraction.unparsed.length > 0 || extraction.dangling.length > 0 || digitAfterLetter(text)) continue;
    const key = `${extraction.signature?.hash ?? 'no maths'} ${text.replace(/[^0-9+\-*/=<>^×÷]/g, '')}`;
    const seen = maths.get(key);
    if (seen === undefined || r.probability > seen.probability) maths.set(key, { chars: picked, probability: r.probability });
  }
  if (maths.size === 1) return { chars: [...maths.values()][0]!.chars };
  if (maths.size === 0) return { doubt: `read unsure: ${named.join(', ')} (no reading of them is maths)` };
  return { doubt: `read unsure: ${named.join(', ')} (${maths.size} different maths fit)` };
}

/** A digit right after a lone letter or two ("x2", "v64"): printed maths writes coefficients first, so a flattened exponent or a misread sign. */
function digitAfterLetter(text: string): boolean {
  return /(?<!\p{L}\p{L})\p{L}\d/u.test(text);
}

/** Whether the character at `i` belongs to a word that carries maths (digits, operators, an unknown next to them). */
function inMaths(chars: readonly OcrChar[], i: number): boolean {
  let start = i;
  while (start > 0 && chars[start - 1]!.text.trim() !== '') start -= 1;
  let end = i;
  while (end < chars.length - 1 && chars[end + 1]!.text.trim() !== '') end += 1;
  if (chars[i]!.text === '') return MATHS_CHAR.test(chars[i]!.alternatives?.[0]?.text ?? '') || MATHS_CHAR.test(chars[i - 1]?.text ?? '') || MATHS_CHAR.test(chars[i + 1]?.text ?? '');
  if (chars[i]!.text.trim() === '') {
    // A space between two maths words separates terms: a space misread there can join or split them.
    return MATHS_CHAR.test(chars[i - 1]?.text ?? '') && MATHS_CHAR.test(chars[i + 1]?.text ?? '');
  }
  return chars.slice(start, end + 1).some((c) => MATHS_CHAR.test(c.text));
}

/** Whitespace-separated words holding maths, each with its weakest character's probability. */
function mathsTokens(chars: readonly OcrChar[]): ReadToken[] {
  const tokens: ReadToken[] = [];
  let word: OcrChar[] = [];
  const flush = (): void => {
    if (word.some((c) => MATHS_CHAR.test(c.text))) tokens.push({ text: word.map((c) => c.text).join(''), confidence: Math.min(...word.map((c) => c.confidence)) });
    word = [];
  };
  for (const c of chars) {
    if (c.text.trim() === '') flush();
    else word.push(c);
  }
  flush();
  return tokens;
}
