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
  if (reading.lines.length === 0) return { status: 'unreadable', reason: 'no text was found in the image; please send a sharper photo or type the problem' };
  const raw = reading.lines.map((l) => l.text).join('\n');
  const foreign = [...raw].find((c) => FOREIGN_SCRIPT.test(c) && !MATHS_GREEK.test(c));
  if (foreign !== undefined) return { status: 'unreadable', reason: `the image holds text in another script ("${foreign}"); only English problems are read — please type the problem` };
  if (reading.lines.filter((l) => ITEM_LABEL.test(l.text)).length >= 2) {
    return { status: 'unreadable', reason: `the image holds several problems (${reading.lines.filter((l) => ITEM_LABEL.test(l.text)).length} numbered items); please crop it to the one you want solved` };
  }
  const doubts: string[] = [];
  const lines = reading.lines.map(lineGeometry);
  for (const line of lines) doubts.push(...line.doubts);
  const chars: OcrChar[] = lines.flatMap((l, i) => (i === 0 ? l.chars : [{ text: '\n', confidence: 1 }, ...l.chars]));
  const text = chars.map((c) => c.text).join('');
  const unsure = chars.filter((c, i) => c.confidence < settings.minCharConfidence && inMaths(chars, i));
  if (unsure.length > 0) doubts.push(`read unsure: ${unsure.map((c) => `"${c.text}" ${c.confidence.toFixed(2)}`).join(', ')}`);
  const tokens = mathsTokens(chars);
  const extraction = extractMathsSignature(normaliseText(text), tokens);
  for (const run of extraction.unparsed) doubts.push(`"${run}" does not parse as maths`);
  for (const run of extraction.dangling) doubts.push(`operator ${run}: an operand was read as a word`);
  if (doubts.length > 0) return { status: 'unreadable', reason: `the maths in the image cannot be read reliably (${doubts.join('; ')}); please send a sharper photo, crop to the problem, or type it` };
  const confidence = tokens.length === 0 ? 1 : Math.min(...tokens.map((t) => t.confidence));
  return { status: 'read', reading: { text, tokens, confidence, reader: reading.reader } };
}

/** Whether the character at `i` belongs to a word that carries maths (digits, operators, an unknown next to them). */
function inMaths(chars: readonly OcrChar[], i: number): boolean {
  let start = i;
  while (start > 0 && chars[start - 1]!.text.trim() !== '') start -= 1;
  let end = i;
  while (end < chars.length - 1 && chars[end + 1]!.text.trim() !== '') end += 1;
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
